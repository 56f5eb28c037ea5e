#!/usr/bin/env bash
# Two builds of tilegrid on one GPU: the working tree against a baseline source tree (for example
# `git archive REV | tar -x -C DIR`), to show that a change to the code generator keeps the kernels'
# speed. Each case runs the default schedule with both builds' `tilegrid run`, in turns, ROUNDS
# times (default 2, alternating which goes first); every
# run checks its result and times ours and cuBLAS in turns in one process (median of ITERS runs,
# L2 flushed before each). Absolute figures drift between processes, so the table compares each
# build's ratio to cuBLAS, median of its runs.
# With SUITE, each round runs a benchmark suite instead (`tilegrid bench --suite SUITE [--filter
# FILTER] --seconds 0 --turns ITERS`, both builds in turns), and the table gives every case's ratio
# to cuBLAS under each build and their quotient, with its geometric mean over the cases.
# Usage: BASE=DIR [ARCHS="sm_90 sm_80"] [ROUNDS=2] [SHAPES="M N K;M N K"] [LAYOUTS="TN NT"]
#        bench/device_ab_builds.sh [ITERS]
#        BASE=DIR SUITE=bench/suites/shapes.json [FILTER=RE] [ROUNDS=2] bench/device_ab_builds.sh [ITERS]
#   (on the GPU machine; logs under $OUT: ab_builds.txt and every run's JSON in ab_builds_json.tar.gz)
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
iters=${1:-200}
archs=${ARCHS:-sm_90}
rounds=${ROUNDS:-2}
default_shapes="4096 4096 4096;8192 8192 8192;4000 4000 4000;5000 3000 4096;4097 4097 4096;1024 1024 32768"
shapes=${SHAPES:-"$default_shapes;64 4096 4096;300 5000 1000"}
base_src=${BASE:?BASE must name the baseline source tree}
base=/tmp/tg-base-build
json=/tmp/tg-ab-builds-json
mkdir -p "$out" "$json"
tg_build "$out" tilegrid_exe
cmake -S "$base_src" -B $base -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/base_configure.log" 2>&1 ||
  { tail -20 "$out/base_configure.log"; exit 1; }
ninja -C $base tilegrid_exe > "$out/base_build.log" 2>&1 || { grep -E "error" "$out/base_build.log" | head; exit 1; }
suite_round() {  # build-dir cache-dir file
  TILEGRID_CACHE_DIR=$2 $1/tilegrid bench --suite "$SUITE" ${FILTER:+--filter "$FILTER"} --seconds 0 \
    --turns "$iters" --json "$3" > "$3.log" 2>&1 || tail -5 "$3.log"
}
if [ -n "${SUITE:-}" ]; then
  for round in $(seq "$rounds"); do  # odd rounds run the new build first, even rounds the baseline
    if [ $((round % 2)) = 1 ]; then order="new base"; else order="base new"; fi
    for build in $order; do
      if [ $build = new ]; then dir=$b cache=/tmp/tg-cache; else dir=$base cache=/tmp/tg-base-cache; fi
      suite_round $dir $cache "$json/${build}_$round.json"
    done
  done
  python3 - "$json" "$rounds" > "$out/ab_builds.txt" <<'PY'
import json, math, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
ratios, checked = {}, True
for build in ('new', 'base'):
    for r in range(1, rounds + 1):
        for case in json.load(open(f'{d}/{build}_{r}.json'))['cases']:
            checked &= all(c['passed'] for c in case['checks'].values())
            ratios.setdefault(case['name'], {}).setdefault(build, []).append(
                case['cublas']['median_ms'] / case['ours']['median_ms'])
print(f'{"case":36} {"new/cuBLAS":>10} {"base/cuBLAS":>11} {"new/base":>8}')
logs = []
for name, by in ratios.items():
    new, base = statistics.median(by['new']), statistics.median(by['base'])
    logs.append(math.log(new / base))
    print(f'{name:36} {new:10.3f} {base:11.3f} {new / base:8.3f}')
print(f'geometric mean of new/base over {len(logs)} cases: {math.exp(sum(logs) / len(logs)):.4f}; '
      f'every result checked: {"PASS" if checked else "FAIL"}')
PY
  tar -czf "$out/ab_builds_json.tar.gz" -C "$json" .
  cat "$out/ab_builds.txt"
  exit 0
fi
run() {  # build-dir cache-dir file args...
  local bin=$1/tilegrid cache=$2 file=$3
  shift 3
  TILEGRID_CACHE_DIR=$cache $bin run --iters "$iters" --format json "$@" > "$file" 2>&1
}
printf '%-6s %-16s %-3s %9s %9s %9s %9s %8s %s\n' arch shape layout new base new/cuBLAS base/cuBLAS new/base check \
  > "$out/ab_builds.txt"
for arch in $archs; do
  for layout in ${LAYOUTS:-TN NT}; do
    IFS=';' read -ra shape_list <<< "$shapes"
    for shape in "${shape_list[@]}"; do
      read -r m n k <<< "$shape"
      tag="${arch}_${m}x${n}x${k}_$layout"
      args=(--arch "$arch" --m "$m" --n "$n" --k "$k" --layout "$layout")
      # Odd rounds run the new build first, even rounds the baseline.
      for round in $(seq "$rounds"); do
        if [ $((round % 2)) = 1 ]; then
          run $b /tmp/tg-cache "$json/new_${tag}_$round.json" "${args[@]}"
          run $base /tmp/tg-base-cache "$json/base_${tag}_$round.json" "${args[@]}"
        else
          run $base /tmp/tg-base-cache "$json/base_${tag}_$round.json" "${args[@]}"
          run $b /tmp/tg-cache "$json/new_${tag}_$round.json" "${args[@]}"
        fi
      done
      python3 - "$json" "$tag" "$arch" "$m" "$n" "$k" "$layout" "$rounds" >> "$out/ab_builds.txt" <<'PY'
import json, statistics, sys
d, tag, arch, m, n, k, layout, rounds = sys.argv[1:]
try:
    runs = {b: [json.load(open(f'{d}/{b}_{tag}_{r}.json')) for r in range(1, int(rounds) + 1)] for b in ('new', 'base')}
    tf = {b: statistics.median(j['ours']['tflops'] for j in runs[b]) for b in runs}
    ratio = {b: statistics.median(j['ratio'] for j in runs[b]) for b in runs}
    ok = all(j['check']['passed'] for b in runs for j in runs[b])
    print(f'{arch:<6} {m}x{n}x{k:<6} {layout:<3} {tf["new"]:9.1f} {tf["base"]:9.1f} {ratio["new"]:9.3f} '
          f'{ratio["base"]:9.3f} {ratio["new"] / ratio["base"]:8.4f} {"PASS" if ok else "FAIL"}')
except Exception as e:
    print(f'{arch} {m}x{n}x{k} {layout}: no result ({e}); see {d}/*_{tag}_*.json')
PY
    done
  done
done
tar -czf "$out/ab_builds_json.tar.gz" -C "$json" .
cat "$out/ab_builds.txt"
