#!/usr/bin/env bash
# Profiles one generated kernel with Nsight Compute on a GPU machine: full section set, warp stall
# reasons, and the per-SASS-instruction source view (stall samples per instruction) as CSV. Only GEMM
# kernels (tilegrid_sm80_*, tilegrid_sm90_*) are profiled, never the runtime's random fills.
# Usage: bench/ncu_profile.sh <tilegrid binary> <out dir> <tilegrid run options...>
set -uo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
ncu --clock-control none --set full --import-source yes -k regex:^tilegrid_sm --launch-skip 2 --launch-count 1 \
    -f -o "$out/profile" "$bin" run "$@" --iters 3 --no-check > "$out/ncu_run.log" 2>&1 || { tail -20 "$out/ncu_run.log"; exit 1; }
ncu -i "$out/profile.ncu-rep" --page details --print-details all > "$out/details.txt" 2>&1
ncu -i "$out/profile.ncu-rep" --page source --csv --print-source sass > "$out/sass.csv" 2>&1
ncu -i "$out/profile.ncu-rep" --page raw --csv > "$out/raw.csv" 2>&1
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Stall|Achieved Occupancy" "$out/details.txt" | head -40
