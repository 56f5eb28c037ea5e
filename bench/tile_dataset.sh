#!/usr/bin/env bash
# The datasets behind the scheduler's tile rules, held by tests/unit/tile_dataset_test.cpp. Each
# problem is timed with the scheduler's default and with the alternatives the rule chose among, ours
# and cuBLAS in turns (tilegrid run: medians of 300, each launch after an L2 flush). CSV on stdout;
# the kernel column is the launch (the kernel with the traversal it is launched with).
#   narrow: M or N under 64 (heuristics.cpp: narrowSideSm90) -> docs/results/narrow_tiles_h100.csv
#   small:  problems cut in step and problems under a wave of few K tiles (heuristics.cpp:
#           smallProblemTileSm90) -> docs/results/small_tiles_h100.csv
# Usage: [SHAPES="M N K[ BATCH];..."] bench/tile_dataset.sh narrow|small [path/to/tilegrid] > dataset.csv
#   SHAPES re-measures some of the set's problems (every configuration of each), to replace their rows.
set -u
set_name=$1
T=${2:-build/release/tilegrid}
echo "m,n,k,batch,layout,config,kernel,ours_us,cublas_us"
measure() {  # m n k batch layout config...
  local m=$1 n=$2 k=$3 batch=$4 layout=$5
  shift 5
  local cfg="${*:-default}"
  "$T" run --m "$m" --n "$n" --k "$k" --batch "$batch" --layout "$layout" "$@" --iters 300 --format json 2>/dev/null |
    python3 -c "
import json, sys
try:
    j = json.load(sys.stdin)
except ValueError:
    sys.exit(0)  # a configuration the device cannot hold (shared memory): no row
print('$m,$n,$k,$batch,$layout,$cfg,%s,%.1f,%.1f' % (j['launch'], j['ours']['median_ms'] * 1e3, j['cublas']['median_ms'] * 1e3))"
}
if [ "$set_name" = narrow ]; then
  IFS=';' read -ra shapes <<< "${SHAPES:-1 4096 4096;16 4096 4096;1 28672 4096;1 8192 8192;32 4096 4096;48 4096 4096;4096 1 4096;8192 16 8192;1 1 100000;8 14336 4096}"
  for shape in "${shapes[@]}"; do
    set -- $shape
    small=$(($1 < $2 ? $1 : $2))
    w=$(((small + 7) / 8 * 8))
    # sw: the small side as wgmma's N (the narrow rule); rows: the small side as M, the other rules' way
    if [ "$1" -le "$2" ]; then sw="--swap-ab on" rows="--swap-ab off"; else sw="--swap-ab off" rows="--swap-ab on"; fi
    for layout in TN NT; do
      measure "$1" "$2" "$3" 1 $layout
      for cfg in "$sw --cta-tile 64x${w}x128 --cluster 1" "$sw --cta-tile 64x${w}x128 --cluster 1 --stages 10" \
                 "$sw --cta-tile 64x${w}x64 --cluster 1" "$sw --cta-tile 64x${w}x256 --cluster 1" \
                 "$sw --cta-tile 64x${w}x256 --cluster 1 --stages 4" "$rows --cta-tile 64x64x64 --cluster 1"; do
        # shellcheck disable=SC2086
        measure "$1" "$2" "$3" 1 $layout $cfg
      done
    done
  done
elif [ "$set_name" = small ]; then
  IFS=';' read -ra shapes <<< "${SHAPES:-64 64 65536 1;128 128 65536 1;256 256 32768 1;512 512 512 1;128 128 64 32;256 256 128 64;512 512 512 16;1024 1024 1024 8}"
  for shape in "${shapes[@]}"; do
    set -- $shape
    for layout in TN NT; do
      measure "$1" "$2" "$3" "$4" $layout
      for cfg in "--cluster 1" "--cluster 2" "--cta-tile 64x64x256 --cluster 1" "--cta-tile 64x64x256 --cluster 2" \
                 "--cta-tile 64x64x64 --cluster 1" "--cta-tile 64x64x64 --cluster 2" "--cta-tile 64x128x64 --cluster 1" \
                 "--cta-tile 128x128x64 --cluster 1" "--cta-tile 128x256x64 --cluster 1"; do
        # shellcheck disable=SC2086
        measure "$1" "$2" "$3" "$4" $layout $cfg
      done
    done
  done
else
  echo "usage: $0 narrow|small [tilegrid]" >&2
  exit 2
fi
