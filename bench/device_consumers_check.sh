#!/usr/bin/env bash
# Fresh build, the gpu-labelled tests, then the new default against the old one (128x256, 2x1
# clusters) where the sm_90 heuristic now picks three consumer warpgroups.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
tg_build "$out"
timeout 420 ctest --test-dir $b --timeout 300 -j 1 -L gpu --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest.log" | head -20
for s in "4097 4097 4096 TN" "4000 4000 4000 NN" "4000 4000 4000 TN"; do
  set -- $s
  for round in 1 2; do
    for extra in "" "--cta-tile 128,256,64"; do
      "$b/tilegrid" run --m "$1" --n "$2" --k "$3" --layout "$4" --arch sm_90 --iters 30 --format json $extra 2>&1 |
        python3 -c "import json,sys; j=json.load(sys.stdin); print('$s', '%.1f %.1f %.3f' % (j['ours']['tflops'], j['cublas']['tflops'], j['ratio']), 'PASS' if j['check']['passed'] else 'FAIL', j['params'][:40], '$extra')"
    done
  done
done | tee "$out/ab.txt"
