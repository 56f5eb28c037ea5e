#!/usr/bin/env bash
# Issue #6 experiment: does a CTA tile whose n fits the problem better beat the default 128x256x64 on
# non-divisible shapes? `tilegrid run` (checked against cuBLAS, median of 30, cuBLAS in process) for
# each shape x tile. Reuses /tmp/tg-build when warm. $OUT/tiles.txt; a table is printed last.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
mkdir -p "$out"
tg_build "$out" tilegrid_exe
printf "%-18s %-12s %8s %8s %6s %s\n" shape tile ours cublas ratio check > "$out/tiles.txt"
for shape in "4000 4000 4000" "5000 3000 4096" "4096 4096 4096" "6144 6144 6144" "8192 8192 8192"; do
  set -- $shape
  for tile in 128,256,64 128,224,64 128,192,64 128,160,64 128,128,64; do
    r=$($b/tilegrid run --m $1 --n $2 --k $3 --cta-tile $tile --iters 30 --format json --no-tuned 2>&1)
    python3 - "$1x$2x$3" "$tile" "$r" >> "$out/tiles.txt" <<'PY'
import json, sys
shape, tile, text = sys.argv[1:]
try:
    j = json.loads(text)
    print(f"{shape:<18} {tile:<12} {j['ours']['tflops']:8.1f} {j['cublas']['tflops']:8.1f} {j['ratio']:6.3f} {'ok' if j['check']['passed'] else 'FAIL'}")
except Exception:
    print(f"{shape:<18} {tile:<12} error: {text.strip().splitlines()[-1][:100] if text.strip() else '?'}")
PY
  done
done
cat "$out/tiles.txt"
