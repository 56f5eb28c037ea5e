#!/usr/bin/env bash
# Build, then the runs that locate writes between C's rows, and the gpu tests named in $1 (a regex).
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
tg_build "$out"
T=$b/tilegrid
P="--m 368 --n 51 --k 56 --dtype fp16 --out-dtype fp32 --lda 126 --ldb 105 --ldc 72 --iters 0"
for o in "" "--swap-ab off" "--stream-k off" "--specialize-shape" "--ldc 0"; do
  echo "== 368x51x56 $o"; $T run $P $o 2>&1 | grep -E "^kernel|^check"
done
P2="--m 1000 --n 700 --k 500 --layout NT --batch 3 --lda 1008 --ldb 704 --ldc 720 --stride-a 504064 --stride-b 352008 --stride-c 720016 --iters 0"
for o in "" "--swap-ab on" "--stream-k off" "--specialize-shape" "--arch sm_80"; do
  echo "== batched NT $o"; $T run $P2 $o 2>&1 | grep -E "^kernel|^check"
done
ctest --test-dir $b -R "$1" --output-on-failure --timeout 300 > "$out/tests.log" 2>&1
grep -E "tests passed|Failed|Which is|norm rel" "$out/tests.log" | head -30
