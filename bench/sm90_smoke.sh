#!/usr/bin/env bash
# Runs the generated sm_90a GEMM on a list of shapes (each under a time limit, so a hang shows as
# one failed row): check against cuBLAS, then time it next to cuBLAS.
# Usage: bench/sm90_smoke.sh <tilegrid binary> <layout> <iters> "M N K" ... [-- extra run options]
set -uo pipefail
bin=$1 layout=$2 iters=$3
shift 3
shapes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shapes+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
extra=("$@")
printf "%-18s %-6s %-8s %-8s %-6s %-6s %-10s %s\n" shape layout ours cublas ratio check norm_rel params
for shape in "${shapes[@]}"; do
  set -- $shape
  timeout 60 "$bin" run --m "$1" --n "$2" --k "$3" --layout "$layout" --arch sm_90 --iters "$iters" --format json "${extra[@]}" \
    > /tmp/smoke.json 2>&1
  rc=$?
  python3 - "$shape" "$layout" "$rc" <<'PY' || true
import json, sys
shape, layout, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open('/tmp/smoke.json').read()
try:
    j = json.loads(text)
    ours = j.get('ours', {}).get('tflops', 0); cub = j.get('cublas', {}).get('tflops', 0)
    c = j.get('check', {})
    print('%-18s %-6s %-8.1f %-8.1f %-6.2f %-6s %-10.2e %s' % (shape.replace(' ', 'x'), layout, ours, cub, j.get('ratio', 0),
          'PASS' if c.get('passed') else 'FAIL', c.get('norm_rel', -1), j.get('params', '')[:60]))
except Exception:
    print('%-18s %-6s rc=%d %s' % (shape.replace(' ', 'x'), layout, rc, text.strip().splitlines()[-1][:150] if text.strip() else ''))
PY
done
