#!/usr/bin/env bash
# Same-process A/B of schedule options with one tilegrid binary: for each of ROUNDS rounds, each
# shape in SHAPES ("M N K layout;..."), each option set in OPTIONS ("|"-separated; an empty set is
# the default schedule), one `tilegrid run` (ITERS event-timed runs, cuBLAS beside, checked). Prints
#   shape layout ours cuBLAS ratio check cta-tile/cluster options
# Usage: SHAPES=... OPTIONS=... bench/tile_ab.sh <tilegrid> [arch]
set -uo pipefail
bin=$1
arch=${2:-sm_90}
IFS=';' read -ra shapes <<< "${SHAPES:?}"
IFS='|' read -ra options <<< "${OPTIONS:-}"
[ ${#options[@]} -eq 0 ] && options=("")
for round in $(seq "${ROUNDS:-2}"); do
  for shape in "${shapes[@]}"; do
    set -- $shape
    for opts in "${options[@]}"; do
      # shellcheck disable=SC2086
      "$bin" run --m "$1" --n "$2" --k "$3" --layout "$4" --arch "$arch" --iters "${ITERS:-30}" --format json $opts 2>&1 |
        python3 -c "
import json, re, sys
text = sys.stdin.read()
try:
    j = json.loads(text)
except ValueError:
    print('$1x$2x$3 $4 error:', text.strip().splitlines()[-1] if text.strip() else 'no output', '[$opts]'); sys.exit()
if 'ours' not in j:
    print('$1x$2x$3 $4 not run:', j.get('reason'), '[$opts]'); sys.exit()
p = j['params']
tile = re.search(r'cta (\d+x\d+)', p).group(1) + ' c' + re.search(r'cluster (\d+)x', p).group(1)
g = re.search(r'grid (\S+) factors=(\S+) group=(\S)', p)
tile += ' ' + (g.group(1).replace('swizzle-merge', 'sm') + g.group(2) + g.group(3) if g else re.search(r'grid (\S+)', p).group(1))
c = j.get('check') or {}
ok = 'unchecked' if 'passed' not in c else 'PASS' if c['passed'] else 'FAIL'
print('%-16s %s %7.1f %7.1f %.3f %s %-18s [%s]' % ('$1x$2x$3', '$4', j['ours']['tflops'], j['cublas']['tflops'], j['ratio'], ok, tile, '$opts'))"
    done
  done
done
