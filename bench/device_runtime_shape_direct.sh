#!/usr/bin/env bash
# Build, the A/B of the direct-store shapes (C's rows not 16-byte aligned), and the sm_90a gpu tests.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
tg_build "$out"
for layout in TN NT; do
  $b/tilegrid run --m 4097 --n 4097 --k 4096 --layout $layout --iters 200 --versus-specialized > "$out/ab_4097_$layout.txt" 2>&1
  grep -E "^time|^check|compiled in" "$out/ab_4097_$layout.txt"
done
ctest --test-dir $b --timeout 300 -j 1 -R "Sm90|RandomProblems|PadRows|Concurrency|Padded" --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|\(Failed\)|Timeout|written between" "$out/ctest.log" | head -20
