#!/usr/bin/env bash
# Nsight Compute of one schedule's kernel twice, from one `tilegrid run` each: reading its shape at
# launch, and with the shape compiled in (--specialize-shape). Headline metrics side by side.
# Usage: bench/ncu_runtime_shape.sh <tilegrid binary> <out dir> <tilegrid run options...>
set -uo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
for mode in launch compiled; do
  extra=()
  [ "$mode" = compiled ] && extra=(--specialize-shape)
  ncu --clock-control none --set full -k "regex:tilegrid_" --launch-skip 2 --launch-count 1 -f -o "$out/$mode" \
      "$bin" run "$@" "${extra[@]}" --iters 4 --baseline none --no-check > "$out/$mode.log" 2>&1 ||
    { tail -5 "$out/$mode.log"; continue; }
  ncu -i "$out/$mode.ncu-rep" --page details --print-details all > "$out/$mode.txt" 2>&1
done
python3 "$(dirname "$0")/ncu_headline.py" "$out/launch.txt" "$out/compiled.txt" "shape at launch" "shape compiled in"
