#!/usr/bin/env bash
# Issue #7 on the GPU: build, the gpu tests, then `tilegrid sweep` for the README's problems (sm_90,
# and sm_80 at 4000^3 where split-merge's overhang launches real CTAs). Everything lands in $OUT.
set -uo pipefail
out=${OUT:-/tmp/out} b=/tmp/tg-build
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt" 2>&1
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
ninja -C $b > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -20; exit 1; }
ctest --test-dir $b --timeout 300 -R "GpuSweep|bench_" --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest.log" | head
export TILEGRID_CACHE_DIR=/tmp/tg-cache
sweep() {  # name, then sweep arguments
  local name=$1; shift
  $b/tilegrid sweep "$@" --iters 40 --out "$out/$name.csv" --plot "$out/$name.svg" > "$out/$name.txt" 2>&1
  echo "== $name: $*"; grep -E "^ +[0-9]+ " "$out/$name.txt" | head -6; grep -E "^cuBLAS|^best|^heuristic|FAIL" "$out/$name.txt"
}
sweep sweep_8192 --m 8192 --n 8192 --k 8192
sweep sweep_4000 --m 4000 --n 4000 --k 4000
sweep sweep_5000x3000_tn --m 5000 --n 3000 --k 4096
sweep sweep_5000x3000_nt --m 5000 --n 3000 --k 4096 --layout NT
sweep sweep_4000_sm80 --m 4000 --n 4000 --k 4000 --arch sm_80
