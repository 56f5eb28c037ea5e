#!/usr/bin/env bash
# sm_80 on the GPU: build, the sm_80 gpu tests (fp64 cases, cuBLAS shapes, every variant), the tile
# sweep at 4096^3 and the issue #5 speed table. $OUT: sm80.tar.gz; tables printed last.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out} w=/tmp/tg-sm80
mkdir -p "$out" $w
tg_build $w
$b/tests/gpu_tests --gtest_filter='Cases/Sm80Gemm.*:Shapes/Sm80VsCublas.*:Variants.EverySm80*' > $w/gtest.log 2>&1
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $w/gtest.log | head -10
bench/sm80_tile_sweep.sh $b/tilegrid 4096 4096 4096 > $w/tiles.txt 2>&1
bench/sm80_speed_table.sh $b/tilegrid > $w/table.txt 2>&1
tar czf "$out/sm80.tar.gz" -C $w .
cat $w/tiles.txt $w/table.txt
