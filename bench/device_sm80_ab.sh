#!/usr/bin/env bash
# One call's worth of sm_80 main-loop work: the A/B of bench/variants against the working tree
# (bench/ab_variants.sh), the working tree's kernel profiled (per-instruction counts and stalls), and
# how the sm_90a ratios move with the number of timed runs (the card's power state).
# $OUT: ab/ (A/B logs), sm80.tar.gz (profile), iters.txt.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/sm80
SHAPES=${SHAPES:-"4096 4096 4096 TN;4096 4096 4096 NT;4000 4000 4000 TN;8192 8192 8192 TN"} ROUNDS=${ROUNDS:-2} \
  "$(dirname "$0")/ab_variants.sh" > "$out/ab_table.txt" 2>&1
bin=/tmp/ab-build-cur/tilegrid
export TILEGRID_CACHE_DIR=/tmp/ab-cache-cur
"$(dirname "$0")/ncu_profile.sh" $bin /tmp/sm80/ncu --m 4096 --n 4096 --k 4096 --arch sm_80 > /tmp/sm80/ncu_summary.txt 2>&1
rm -f /tmp/sm80/ncu/profile.ncu-rep
tar czf "$out/sm80.tar.gz" -C /tmp sm80
for iters in ${ITERS_LIST:-30 300 1500}; do
  for shape in "4000 4000 4000" "5000 3000 4096" "4096 4096 4096"; do
    set -- $shape
    $bin run --m $1 --n $2 --k $3 --arch sm_90 --iters $iters --format json 2>&1 | python3 -c "
import json, sys
j = json.load(sys.stdin)
print('iters %5d %-16s ours %6.1f cuBLAS %6.1f ratio %.3f %s' % ($iters, '$1x$2x$3', j['ours']['tflops'], j['cublas']['tflops'], j['ratio'], 'PASS' if j['check']['passed'] else 'FAIL'))"
  done
done | tee "$out/iters.txt"
cat "$out/ab_table.txt"
