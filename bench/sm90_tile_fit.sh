#!/usr/bin/env bash
# Tile widths off the 128-byte epilogue slab on the sm_90a kernel (H100), in three timed steps:
#  1. overlapping last slab (the working tree) against narrower slabs (bench/variants/slab32) on
#     192x160 (4000^3) and 128x232 pairs (5000x3000x4096); builds gpu_tests beside;
#  2. the sm_90 small variants and stream-K cases, which cover overlapping multicast halves;
#  3. speed on whole waves (no padding, no partial wave) of 128xN pairs (2816 x 24N: 264 units, 4
#     waves of 66) and lone 192xN CTAs (2304 x 44N: 528 tiles, 4 waves of 132), then candidate tiles
#     on issue #6's non-divisible shapes. Two rounds each, cuBLAS in the same process.
# Tables land in $OUT (slab_ab.txt, gpu_tests.log, fit.txt).
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
VARIANTS=bench/variants ARCH=sm_90 ROUNDS=2 CUR_TARGETS=gpu_tests \
  SHAPES="4000 4000 4000 TN;5000 3000 4096 TN --cta-tile 128,232,64 --cluster 2" bench/ab_variants.sh > "$out/slab_ab.txt"
timeout 240 /tmp/ab-build-cur/tests/gpu_tests --gtest_filter='Variants.EverySm90*:StreamK/*:Sm90StreamK.*' \
  > "$out/gpu_tests.log" 2>&1
echo "gpu tests: $(grep -E '^\[  PASSED|^\[  FAILED' "$out/gpu_tests.log" | head -5 | tr '\n' ' ')"
shapes=""
for n in ${PAIR_WIDTHS:-256 232 200 152 128}; do shapes+="2816 $((24 * n)) 4096 TN --cta-tile 128,$n,64 --cluster 2;"; done
for n in ${LONE_WIDTHS:-160 152 128}; do shapes+="2304 $((44 * n)) 4096 TN --cta-tile 192,$n,64 --cluster 1;"; done
shapes+=${TARGETS:-"5000 3000 4096 TN;5000 3000 4096 TN --cta-tile 128,232,64 --cluster 2;5000 3000 4096 TN --cta-tile 128,240,64 --cluster 2;5000 3000 4096 TN --cta-tile 128,192,64 --cluster 2;3000 5000 4096 TN;3000 5000 4096 TN --cta-tile 192,152,64 --cluster 1;3000 5000 4096 TN --cta-tile 128,152,64 --cluster 2;3000 5000 4096 TN --cta-tile 128,232,64 --cluster 2;5000 5000 4096 TN;5000 5000 4096 TN --cta-tile 128,152,64 --cluster 2;5000 5000 4096 TN --cta-tile 128,224,64 --cluster 2;4000 4000 4000 TN --cta-tile 128,200,64 --cluster 2"}
VARIANTS=/nonexistent ARCH=sm_90 ROUNDS=2 SHAPES="$shapes" bench/ab_variants.sh > "$out/fit.txt"
echo "== slab A/B"; cat "$out/slab_ab.txt"
echo "== fit"; sort -k2,2 -k9 "$out/fit.txt"
