#!/usr/bin/env bash
# The sm_80 kernel's SASS and where its instructions and stalls go, for one shape, plus the README's
# grid-traversal sweeps: fresh build, TILEGRID_DUMP=sass of the default sm_80 kernel, Nsight Compute
# (full set, per-instruction executed counts and stall samples), then `tilegrid sweep` at 8192^3 and
# 4000^3 (sm_90a) and SM80_SWEEP (sm_80). $OUT: sm80.tar.gz (SASS, profile CSVs), sweeps.tar.gz.
# Usage: bench/device_sm80_sass.sh [M N K layout]
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out} w=/tmp/tg-sass
m=${1:-4096} n=${2:-4096} k=${3:-4096} layout=${4:-TN}
mkdir -p "$out" $w/sm80 $w/sweeps
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $w/sweeps/gpu.txt 2>&1
tg_build $w tilegrid_exe
args=(--m "$m" --n "$n" --k "$k" --layout "$layout" --arch sm_80)
TILEGRID_DUMP=sass $b/tilegrid compile "${args[@]}" > $w/sm80/kernel.sass 2>&1
"$(dirname "$0")/ncu_profile.sh" $b/tilegrid $w/sm80/ncu "${args[@]}" > $w/sm80/ncu_summary.txt 2>&1
rm -f $w/sm80/ncu/profile.ncu-rep
tar czf "$out/sm80.tar.gz" -C $w sm80
for shape in "8192 8192 8192 sm_90" "4000 4000 4000 sm_90" ${SM80_SWEEP:+"$SM80_SWEEP sm_80"}; do
  set -- $shape
  name=sweep_$1x$2x$3
  [ "$4" = sm_80 ] && name=${name}_sm80
  $b/tilegrid sweep --m $1 --n $2 --k $3 --arch $4 --iters 40 --out $w/sweeps/$name.csv --plot $w/sweeps/$name.svg > $w/sweeps/$name.txt 2>&1
  echo "== $name"; grep -E "^cuBLAS|^best|^heuristic|FAIL" $w/sweeps/$name.txt
done
tar czf "$out/sweeps.tar.gz" -C $w sweeps
cat $w/sm80/ncu_summary.txt | head -30
