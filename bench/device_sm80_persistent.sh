#!/usr/bin/env bash
# Persistent vs one-CTA-per-tile sm_80 kernels: correctness on edge cases (checked against cuBLAS) and
# speed on issue #5's shapes. Reuses /tmp/tg-build when warm. Table printed last.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
tg_build /tmp tilegrid_exe
row() {  # label, run args
  local label=$1; shift
  $b/tilegrid run "$@" --arch sm_80 --format json 2>&1 | python3 -c "
import json, sys
text = sys.stdin.read()
try:
    j = json.loads(text)
    t = '%8.1f %8.1f %6.3f' % (j['ours']['tflops'], j['cublas']['tflops'], j['ratio']) if 'ours' in j else ''
    print('%-44s %s %s' % ('$label', 'PASS' if j['check']['passed'] else 'FAIL', t))
except Exception:
    print('%-44s error %s' % ('$label', text.strip().splitlines()[-1][:120] if text.strip() else '?'))"
}
for p in on off; do
  row "1001x515x257 NT batch3 p=$p" --m 1001 --n 515 --k 257 --layout NT --batch 3 --persistent $p --iters 0
  row "257x129x77 TT split-merge3 p=$p" --m 257 --n 129 --k 77 --layout TT --method split-merge --factor 3 --persistent $p --iters 0
  row "4097x4097x4096 TN p=$p" --m 4097 --n 4097 --k 4096 --persistent $p --iters 10
done
for shape in "2048 2048 2048" "4096 4096 4096" "8192 8192 8192" "4000 4000 4000"; do
  set -- $shape
  for layout in TN NT; do
    for p in off on; do row "$1x$2x$3 $layout p=$p" --m $1 --n $2 --k $3 --layout $layout --persistent $p --iters 30; done
  done
done
