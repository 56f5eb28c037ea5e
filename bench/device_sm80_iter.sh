#!/usr/bin/env bash
# One device call for sm_80 tuning: fresh build, the sm_80 GPU tests, the speed table, an ncu profile.
set -uo pipefail
out=${OUT:-/tmp/out} b=/tmp/tg-build
mkdir -p "$out"
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
ninja -C $b > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -20; exit 1; }
ctest --test-dir $b -L gpu -R "Sm80" > "$out/gpu_tests.log" 2>&1; grep -E "tests passed|Failed" "$out/gpu_tests.log" | head
bench/sm80_speed_table.sh $b/tilegrid > "$out/speed.txt" 2>&1
bench/ncu_profile.sh $b/tilegrid "$out/ncu" --m 4096 --n 4096 --k 4096 --arch sm_80 > "$out/ncu_summary.txt" 2>&1
cat "$out/ncu_summary.txt"; cat "$out/speed.txt"
