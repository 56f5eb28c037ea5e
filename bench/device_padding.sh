#!/usr/bin/env bash
# The sm_80 copies' interior fast path and padded operand copies, on a GPU machine, in one call:
# 1. A/B of the sm_80 kernel against the template before the fast path (bench/variants/old, made
#    from git: `git show <commit>:<file>` for tilegrid/codegen/templates/sm80_gemm.cu, tilegrid/codegen/sm80_emitter.cpp
#    and tilegrid/codegen/device/common.cuh) on problems with and without edges;
# 2. the GPU tests (all but the large sm_90 cuBLAS shapes this change does not touch, whose 4097
#    rows it does);
# 3. padded copies on and off for misaligned sm_80 problems, and the sm_90 4097 rows, next to cuBLAS.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
CUR_TARGETS=gpu_tests SHAPES="${AB_SHAPES:-4000 4000 4000 TN;4000 4000 4000 NT;4096 4096 4096 TN}" ROUNDS=2 \
  bench/ab_variants.sh > "$out/ab_fastpath.txt" 2>&1
bin=/tmp/ab-build-cur
(cd /tmp && TILEGRID_CACHE_DIR=/tmp/tg-cache "$bin/tests/gpu_tests" \
   --gtest_filter="${GPU_FILTER:--Shapes/Sm90VsCublas.*:*}:Shapes/Sm90VsCublas.*4097x4097*" > "$out/gpu_tests.log" 2>&1)
export TILEGRID_CACHE_DIR=/tmp/tg-cache
SHAPES="${PAD_SHAPES:-4097 4097 4096 NT;1001 999 1003 TN;4096 2048 4098 TN;2048 8192 2050 NT}" \
  OPTIONS="|--pad-operands off" ROUNDS=2 bench/tile_ab.sh "$bin/tilegrid" sm_80 > "$out/pad_sm80.txt" 2>&1
SHAPES="4097 4097 4096 NT;4097 4097 4096 TN" ROUNDS=1 bench/tile_ab.sh "$bin/tilegrid" sm_90 > "$out/pad_sm90.txt" 2>&1
grep -E "^\[  (PASSED|FAILED) |tests ran" "$out/gpu_tests.log" | head -20
cat "$out/ab_fastpath.txt" "$out/pad_sm80.txt" "$out/pad_sm90.txt"
