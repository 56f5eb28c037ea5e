#!/usr/bin/env bash
# The dataset behind the narrow-tile rule (tilegrid/scheduler/heuristics.cpp: narrowSideSm90):
# problems with M or N under 64, each timed with the scheduler's default, with narrow tiles of
# several K depths and stage counts, and with 64x64 tiles holding the small side as M, ours and cuBLAS in turns (tilegrid run, medians of 300 after an
# L2 flush each). Writes CSV on stdout; docs/results/narrow_tiles_h100.csv is its output on an H100.
# Usage: bench/narrow_tiles.sh [path/to/tilegrid] > narrow_tiles.csv
set -u
T=${1:-build/release/tilegrid}
echo "m,n,k,layout,config,kernel,ours_us,cublas_us"
for shape in "1 4096 4096" "16 4096 4096" "1 28672 4096" "1 8192 8192" "32 4096 4096" "4096 1 4096" \
             "8192 16 8192" "1 1 100000" "8 14336 4096"; do
  set -- $shape
  small=$(($1 < $2 ? $1 : $2))
  w=$(((small + 7) / 8 * 8))
  # sw: the small side as wgmma's N (the narrow rule); rows: the small side as M, the other rules' way
  if [ "$1" -le "$2" ]; then sw="--swap-ab on" rows="--swap-ab off"; else sw="--swap-ab off" rows="--swap-ab on"; fi
  for layout in TN NT; do
    for cfg in "default" "$sw --cta-tile 64x${w}x128 --cluster 1" "$sw --cta-tile 64x${w}x128 --cluster 1 --stages 10" \
               "$sw --cta-tile 64x${w}x64 --cluster 1" "$sw --cta-tile 64x${w}x256 --cluster 1" \
               "$sw --cta-tile 64x${w}x256 --cluster 1 --stages 4" "$rows --cta-tile 64x64x64 --cluster 1"; do
      o=$cfg
      [ "$o" = default ] && o=""
      # shellcheck disable=SC2086
      "$T" run --m "$1" --n "$2" --k "$3" --layout $layout $o --iters 300 --format json 2>/dev/null |
        python3 -c "
import json, sys
try:
    j = json.load(sys.stdin)
except ValueError:
    sys.exit(0)  # a configuration the device cannot hold (shared memory): no row
print('$1,$2,$3,$layout,$cfg,%s,%.1f,%.1f' % (j['kernel'], j['ours']['median_ms'] * 1e3, j['cublas']['median_ms'] * 1e3))"
    done
  done
done
