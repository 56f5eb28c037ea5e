#!/bin/bash
# A/B: aux output by TMA (this tree) against the tree before (.devold), in turns per shape.
source bench/device_build.sh
mkdir -p $OUT/logs $OUT/ab
TG_CMAKE_ARGS="-DTILEGRID_BUILD_BENCHMARKS=OFF -DTILEGRID_BUILD_PYTHON=OFF" tg_build $OUT/logs tilegrid_exe gpu_tests
(cd .devold && cmake -S . -B /tmp/tg-old -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILEGRID_BUILD_BENCHMARKS=OFF -DTILEGRID_BUILD_PYTHON=OFF > $OUT/logs/old_configure.log 2>&1 && ninja -C /tmp/tg-old tilegrid_exe > $OUT/logs/old_build.log 2>&1) || { tail -5 $OUT/logs/old_build.log; exit 1; }
echo "builds done $(date +%T)"
$b/tests/gpu_tests --gtest_filter='FusedEpilogue.*' > $OUT/logs/fused_epilogue_tests.log 2>&1; tail -4 $OUT/logs/fused_epilogue_tests.log
grep -E "FAILED|Failure" -A4 $OUT/logs/fused_epilogue_tests.log | head -30
E="gelu_tanh(acc + bias[n]); aux = acc + bias[n]"
i=0
while read m n k extra; do
  for which in old new; do
    bin=$b/tilegrid; [ $which = old ] && bin=/tmp/tg-old/tilegrid
    timeout 120 $bin run --m $m --n $n --k $k --epilogue "$E" --iters 300 $extra --format json > $OUT/ab/${i}_$which.json 2> $OUT/ab/${i}_$which.err
  done
  i=$((i+1))
done <<'SHAPES'
32768 768 768
16384 4096 1024
8192 1024 1024
4096 4096 1024
4096 4096 2048
8192 1024 4096
4096 4096 4096
2048 6144 4096
2048 2048 2048
4096 4096 4096 --pingpong off
32768 768 768 --pingpong off
SHAPES
python3 - <<'PY'
import json, glob, os
out = os.environ["OUT"]
print(f"{'#':>2} {'problem':>22} {'kernel':>10} {'old us':>8} {'new us':>8} {'new/old':>7} {'lt us':>7} {'lt/old':>6} {'lt/new':>6} ok")
for i in range(11):
    r = {}
    for w in ("old", "new"):
        try:
            r[w] = json.load(open(f"{out}/ab/{i}_{w}.json"))
        except Exception as e:
            r[w] = None
    if not r["old"] or not r["new"]:
        print(i, "missing", open(f"{out}/ab/{i}_new.err").read()[-300:]); continue
    o, n = r["old"], r["new"]
    po = o["problem"] if "problem" in o else ""
    om, nm = o["ours"]["median_ms"]*1e3, n["ours"]["median_ms"]*1e3
    lt = n["cublaslt_fused"].get("median_ms", 0)*1e3
    lto = o["cublaslt_fused"].get("median_ms", 0)*1e3
    ok = o["check"]["passed"] and n["check"]["passed"]
    print(f"{i:>2} {str(n.get('kernel',''))[-22:]:>22} {'':>10} {om:8.1f} {nm:8.1f} {nm/om:7.3f} {lt:7.1f} {lto/om:6.3f} {lt/nm:6.3f} {ok}")
PY
