#!/usr/bin/env bash
# Fresh build, the whole gpu-labelled suite, then the README's two sweeps (8192^3 and 4000^3) with
# their plots. $OUT: ctest.log, sweeps.tar.gz; a summary is printed last.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out} w=/tmp/tg-suite
mkdir -p "$out" $w/sweeps
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $w/sweeps/gpu.txt 2>&1
tg_build $w
ctest --test-dir $b --timeout 400 -L gpu --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest.log" | head -20
for shape in "8192 8192 8192" "4000 4000 4000"; do
  set -- $shape
  name=sweep_$1x$2x$3
  $b/tilegrid sweep --m $1 --n $2 --k $3 --iters 40 --out $w/sweeps/$name.csv --plot $w/sweeps/$name.svg > $w/sweeps/$name.txt 2>&1
  echo "== $name"; grep -E "^ +[0-9]+ " $w/sweeps/$name.txt | head -4; grep -E "^cuBLAS|^best|^heuristic|FAIL" $w/sweeps/$name.txt
done
tar czf "$out/sweeps.tar.gz" -C $w sweeps configure.log build.log
