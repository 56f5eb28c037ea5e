#!/usr/bin/env bash
# Full build, then: repeated runs of one GPU test filter (with output), compute-sanitizer on small
# sm_90 runs, and timing of cluster 1 vs 2.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
mkdir -p "$out"
tg_build "$out"
$b/tests/gpu_tests --gtest_filter="$1" --gtest_repeat="$2" > "$out/repeat.log" 2>&1
grep -E "Failure|norm rel|PASSED|FAILED" "$out/repeat.log" | sort | uniq -c | head -20
for c in 1 2; do
  compute-sanitizer --tool memcheck $b/tilegrid run --m 300 --n 200 --k 100 --arch sm_90 --iters 1 --cluster $c > "$out/memcheck_c$c.log" 2>&1
  echo "memcheck cluster $c: rc=$? $(grep -E 'ERROR SUMMARY' "$out/memcheck_c$c.log")"
done
for c in 1 2; do bench/sm90_smoke.sh $b/tilegrid TN 30 "4096 4096 4096" "8192 8192 8192" "4000 4000 4000" -- --cluster $c; done
