#!/usr/bin/env bash
# sm_80 CTA-tile experiments on the GPU: builds the CLI only and runs bench/sm80_tile_sweep.sh for the
# shapes and layouts in SHAPES ("M N K layout;...") over TILES and EXTRA (see that script) into
# $OUT/$TAG.txt (TAG defaults to tiles). Table printed last.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
mkdir -p "$out"
tg_build "$out" tilegrid_exe
IFS=';' read -ra shapes <<< "${SHAPES:-4096 4096 4096 TN}"
for shape in "${shapes[@]}"; do
  set -- $shape
  echo "== $1x$2x$3 $4"
  bench/sm80_tile_sweep.sh $b/tilegrid "$1" "$2" "$3" "$4"
done | tee "$out/${TAG:-tiles}.txt"
