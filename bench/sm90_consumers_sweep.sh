#!/usr/bin/env bash
# CTA tiles with three or four consumer warpgroups (192xN, 256xN) against the default 128x256 on the
# non-divisible shapes of issue #6: bench/ab_variants.sh over SHAPES (two rounds, cuBLAS in the same
# process), then (unless CHECKS=0) a correctness pass over odd small shapes in every layout.
set -uo pipefail
VARIANTS=/nonexistent ARCH=sm_90 ROUNDS=${ROUNDS:-2} SHAPES="${SHAPES:?}" bench/ab_variants.sh
b=/tmp/ab-build-cur
export TILEGRID_CACHE_DIR=/tmp/ab-cache-cur
[ "${CHECKS:-1}" = 0 ] && exit 0
for t in 192,160,64 256,128,64 192,176,64; do
  for l in TN NT NN TT; do
    for shape in "131 67 37" "333 517 200" "1000 1000 1000"; do
      set -- $shape
      r=$("$b/tilegrid" run --m "$1" --n "$2" --k "$3" --layout "$l" --arch sm_90 --cta-tile "$t" --iters 0 --format json 2>&1 |
          python3 -c "import json,sys; j=json.load(sys.stdin); c=j['check']; print('PASS' if c['passed'] else 'FAIL', c.get('norm_rel'))" 2>&1)
      echo "check $t $l ${1}x${2}x${3}: $r"
    done
  done
done | tee "$OUT/checks.txt" | grep -c PASS
grep -v PASS "$OUT/checks.txt" | head
