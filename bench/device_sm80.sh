#!/usr/bin/env bash
# sm_80 on the GPU: build, the sm_80 gpu tests (fp64 cases, cuBLAS shapes, every variant), the tile
# sweep at 4096^3 and the issue #5 speed table. $OUT: sm80.tar.gz; tables printed last.
set -uo pipefail
out=${OUT:-/tmp/out} b=/tmp/tg-build w=/tmp/tg-sm80
mkdir -p "$out" $w
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release > $w/configure.log 2>&1 || { tail -20 $w/configure.log; exit 1; }
ninja -C $b > $w/build.log 2>&1 || { grep -E "error" $w/build.log | head -20; exit 1; }
export TILEGRID_CACHE_DIR=/tmp/tg-cache
$b/tests/gpu_tests --gtest_filter='Cases/Sm80Gemm.*:Shapes/Sm80VsCublas.*:Variants.EverySm80*' > $w/gtest.log 2>&1
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $w/gtest.log | head -10
bench/sm80_tile_sweep.sh $b/tilegrid 4096 4096 4096 > $w/tiles.txt 2>&1
bench/sm80_speed_table.sh $b/tilegrid > $w/table.txt 2>&1
tar czf "$out/sm80.tar.gz" -C $w .
cat $w/tiles.txt $w/table.txt
