#!/usr/bin/env bash
# Issue #8 on the GPU: compute-sanitizer memcheck, racecheck and synccheck over every emitted sm_80
# and sm_90a variant on small odd shapes (tests/gpu/variants_gpu_test.cpp), and memcheck over the
# 8-thread concurrency test. Reuses /tmp/tg-build when the machine is still warm.
# $OUT gets sanitize.tar.gz with every log; a summary is printed last. CHECKS="name ..." runs only
# the named checks (e.g. "memcheck_sm80 racecheck_sm80 control_memcheck control_racecheck").
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out} w=/tmp/tg-san
mkdir -p "$out" $w
tg_build $w
t=$b/tests/gpu_tests
san() {  # name, tool, gtest filter, timeout, [env]
  local name=$1 tool=$2 filter=$3 limit=$4; shift 4
  [[ -n "${CHECKS:-}" && " $CHECKS " != *" $name "* ]] && return
  local start=$(date +%s)
  env "$@" timeout $limit compute-sanitizer --tool $tool --error-exitcode 9 $t --gtest_filter="$filter" > $w/$name.log 2>&1
  local rc=$?
  printf "%-28s rc=%-3s %4ss  %s | %s\n" "$name" $rc $(( $(date +%s) - start )) \
    "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $w/$name.log | tail -1)" "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $w/$name.log | tr '\n' ' ')" >> $w/summary.txt
}
# Warm the kernel cache outside the sanitizer (NVRTC is host code; this only saves time).
$t --gtest_filter='Variants.*:Concurrency.*' > $w/plain.log 2>&1
echo "plain run: $(grep -E '^\[  (PASSED|FAILED) ' $w/plain.log | tr '\n' ' ')" > $w/summary.txt
san memcheck_sm80 memcheck 'Variants.EverySm80*' 240
san memcheck_sm90 memcheck 'Variants.EverySm90*' 240
san memcheck_threads memcheck 'Concurrency.*' 120
san racecheck_sm80 racecheck 'Variants.EverySm80*' 300 TILEGRID_VARIANT_STRIDE=${RACE_STRIDE:-1}
san racecheck_sm90 racecheck 'Variants.EverySm90*' 300 TILEGRID_VARIANT_STRIDE=${RACE_STRIDE:-1}
san synccheck_all synccheck 'Variants.*' 200 TILEGRID_VARIANT_STRIDE=4
# Full-size kernels through the CLI, launched with no cuBLAS kernel beside them (`--baseline none`,
# no check): cuBLAS's kernels make racecheck fail with "failed to handle a hardware exception".
# Stream-K cuts (pieces that hand partial sums over, and slices), whole units over some of the
# clusters (4096^3), and both families' default tiles. The sm_80 shapes are short in K, as racecheck
# takes minutes over a 4096^3 mma.sync kernel; they still walk several tiles a CTA, edges and a K tail.
san_cli() {  # name, tool, timeout
  local name=$1 tool=$2 limit=$3 rc=0 start=$(date +%s)
  [[ -n "${CHECKS:-}" && " $CHECKS " != *" $name "* ]] && return
  : > $w/$name.log
  while read -r args; do
    [ -z "$args" ] && continue
    echo "== $args" >> $w/$name.log
    # shellcheck disable=SC2086
    timeout $limit compute-sanitizer --tool $tool --error-exitcode 9 $b/tilegrid run $args --no-check --iters 1 \
      --baseline none >> $w/$name.log 2>&1 || rc=$?
  done <<'SHAPES'
--m 1536 --n 2048 --k 3328 --cta-tile 128,256,64
--m 1536 --n 2048 --k 3328 --cta-tile 128,256,64 --cluster 1
--m 1000 --n 3000 --k 4136 --layout NN --cta-tile 128,232,64
--m 1024 --n 1024 --k 3328 --batch 3 --layout TT --cta-tile 128,256,64
--m 256 --n 256 --k 65536
--m 5000 --n 3000 --k 4096
--m 4000 --n 4000 --k 4000 --layout NT
--m 4096 --n 4096 --k 4096
--m 4096 --n 2048 --k 192 --arch sm_80
--m 4000 --n 2000 --k 200 --arch sm_80 --layout NT
--m 257 --n 131 --k 301 --batch 2 --dtype e4m3 --scale block128 --out-dtype fp32
--m 257 --n 131 --k 301 --batch 2 --dtype e4m3 --b-dtype e5m2 --scale row
--m 2048 --n 2048 --k 512 --dtype e4m3 --scale block128
SHAPES
  printf "%-28s rc=%-3s %4ss  %s runs, summaries: %s\n" "$name" $rc $(( $(date +%s) - start )) \
    "$(grep -c '^== ' $w/$name.log)" "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $w/$name.log | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
    >> $w/summary.txt
}
san_cli memcheck_cli memcheck 90
san_cli racecheck_cli racecheck 90
# Negative controls: known bugs that must be reported (rc 9 and a non-zero summary).
san control_memcheck memcheck 'SanitizerControl.DISABLED_WritesOnePastTheEnd' 60 GTEST_ALSO_RUN_DISABLED_TESTS=1
san control_racecheck racecheck 'SanitizerControl.DISABLED_RacesOnSharedMemory' 60 GTEST_ALSO_RUN_DISABLED_TESTS=1
tar czf "$out/sanitize.tar.gz" -C $w .
cat $w/summary.txt
