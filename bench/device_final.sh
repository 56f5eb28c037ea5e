#!/usr/bin/env bash
# Full build, the gpu-labelled tests (CI runs the rest), then the sm_90 and sm_80 speed tables.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt" 2>&1
tg_build "$out"
ctest --test-dir $b --timeout 300 -j 1 -L gpu --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest.log" | head -20
bench/sm90_speed_table.sh $b/tilegrid > "$out/sm90.txt" 2>&1
bench/sm80_speed_table.sh $b/tilegrid > "$out/sm80.txt" 2>&1
cat "$out/sm80.txt" "$out/sm90.txt"
