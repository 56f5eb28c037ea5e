#!/usr/bin/env bash
# A/B of source variants on the GPU machine, each built in its own tree and timed in the same run.
# Variant "cur" is the working tree. Every directory under $VARIANTS (default bench/variants, kept
# out of the copies) is another: its files, at their paths relative to the repository root, replace
# the tree's. Runs
# `tilegrid run` for every shape in SHAPES ("M N K layout [extra options];...") ROUNDS times,
# alternating variants, with ARCH (default sm_80), and prints one line per run:
#   variant shape layout ours cuBLAS ratio check [extra options]
# CUR_TARGETS: extra ninja targets for the working tree's build (/tmp/ab-build-cur), e.g. gpu_tests.
# The trees keep their files' times, so a second call on a warm machine rebuilds only what changed.
# Logs under $OUT/ab.
set -uo pipefail
logs=${OUT:-/tmp/out}/ab
mkdir -p "$logs"
src=$PWD
variants_dir=$(realpath -m "${VARIANTS:-bench/variants}")
variants=(cur)
for d in "$variants_dir"/*/; do [ -d "$d" ] && variants+=("$(basename "$d")"); done
for v in "${variants[@]}"; do
  tree=/tmp/ab-src-$v
  rm -rf "$tree" && mkdir -p "$tree" && cp -a "$src"/. "$tree"/ && rm -rf "$tree/bench/variants"
  [ "$v" != cur ] && cp -r "$variants_dir/$v"/. "$tree"/
  (cmake -S "$tree" -B /tmp/ab-build-$v -G Ninja -DCMAKE_BUILD_TYPE=Release > "$logs/configure-$v.log" 2>&1 &&
     ninja -C /tmp/ab-build-$v tilegrid_exe $([ "$v" = cur ] && echo "${CUR_TARGETS:-}") > "$logs/build-$v.log" 2>&1 ||
     echo "variant $v: build failed") &
done
wait
IFS=';' read -ra shapes <<< "${SHAPES:-4096 4096 4096 TN}"
for round in $(seq "${ROUNDS:-2}"); do
  for shape in "${shapes[@]}"; do
    set -- $shape
    m=$1 n=$2 k=$3 layout=$4
    shift 4
    for v in "${variants[@]}"; do
      TILEGRID_CACHE_DIR=/tmp/ab-cache-$v /tmp/ab-build-$v/tilegrid run --m "$m" --n "$n" --k "$k" --layout "$layout" \
        --arch "${ARCH:-sm_80}" --iters "${ITERS:-30}" --format json "$@" > "$logs/run.json" 2>> "$logs/run.err"
      python3 - "$v" "${m}x${n}x${k}" "$layout" "$logs/run.json" "$*" <<'PY' || echo "$v ${m}x${n}x${k} $layout $* error"
import json, sys
v, shape, layout, path, extra = sys.argv[1:]
j = json.load(open(path))
check = j.get('check') or {}
print(f"{v:8s} {shape:16s} {layout} {j['ours']['tflops']:7.1f} {j['cublas']['tflops']:7.1f} {j['ratio']:.3f} "
      f"{'unchecked' if 'passed' not in check else 'PASS' if check['passed'] else 'FAIL'} {extra}")
PY
    done
  done
done | tee "$logs/ab.txt"
