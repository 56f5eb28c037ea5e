#!/usr/bin/env bash
# Nsight Compute (clock control off, full section set) of tilegrid's kernel and cuBLAS's for one
# shape, from one `tilegrid run` each, then the headline metrics side by side.
# Usage: bench/ncu_compare.sh <tilegrid binary> <out dir> <tilegrid run options...>
set -uo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
for who in tilegrid_ nvjet; do
  ncu --clock-control none --set full -k "regex:$who" --launch-skip 2 --launch-count 1 -f -o "$out/$who" \
      "$bin" run "$@" --iters 4 --no-check > "$out/$who.log" 2>&1 || { tail -5 "$out/$who.log"; continue; }
  ncu -i "$out/$who.ncu-rep" --page details --print-details all > "$out/$who.txt" 2>&1
done
python3 "$(dirname "$0")/ncu_headline.py" "$out/tilegrid_.txt" "$out/nvjet.txt" tilegrid cuBLAS
