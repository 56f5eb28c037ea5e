#!/usr/bin/env bash
# The sm_90a speed table of issue #6: default schedules (or extra run options), bf16, TN and NT, next
# to cuBLAS in the same process (median of 30 event-timed runs, L2 flushed before each).
# Usage: bench/sm90_speed_table.sh <tilegrid> [extra run options...]
set -uo pipefail
bin=$1
shift
for layout in TN NT; do
  bench/sm90_smoke.sh "$bin" "$layout" 30 "4096 4096 4096" "6144 6144 6144" "8192 8192 8192" "4000 4000 4000" \
    "5000 3000 4096" "4097 4097 4096" -- "$@"
done
