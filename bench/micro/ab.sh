#!/usr/bin/env bash
# Temporary A/B: baseline vs the K-tile loop unrolled twice (B).
set -uo pipefail
export TILEGRID_CACHE_DIR=/tmp/tg-cache-ab
src=$PWD
for v in A B; do
  d=/tmp/src$v; rm -rf $d; mkdir -p $d; cp -r "$src"/. $d/
  if [ $v = B ]; then
    python3 - $d/codegen/templates/sm80_gemm.cu <<'PY'
import sys
p=sys.argv[1]; s=open(p).read()
old="""    // Not unrolled: a short K would otherwise unroll the whole main loop and run out of registers.
#pragma unroll 1
    for (int kt = 0;"""
assert old in s
s=s.replace(old, """#pragma unroll 2
    for (int kt = 0;""")
open(p,'w').write(s)
PY
  fi
  (cmake -S $d -B /tmp/b$v -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/cfg$v.log 2>&1 && ninja -C /tmp/b$v tilegrid_exe > /tmp/build$v.log 2>&1) &
done
wait
/tmp/bB/tilegrid compile --m 4096 --n 4096 --k 4096 --arch sm_80 | sed -n 2p
for round in 1 2; do
for shape in "4096 4096 4096 TN" "4096 4096 4096 NT" "8192 8192 8192 TN" "1000 1000 1000 TN"; do
  set -- $shape
  for v in A B; do
    /tmp/b$v/tilegrid run --m $1 --n $2 --k $3 --layout $4 --arch sm_80 --iters 30 --format json 2>&1 | python3 -c "
import json,sys
j=json.load(sys.stdin); print('$v $1x$2x$3 $4 %.1f %.1f %.3f %s' % (j['ours']['tflops'], j['cublas']['tflops'], j['ratio'], j['check']['passed']))" || echo "$v $shape error"
  done
done
done
