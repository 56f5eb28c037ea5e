#!/usr/bin/env bash
# sm_80 CTA-tile experiments on the GPU: builds the CLI only and runs bench/sm80_tile_sweep.sh for the
# shapes and layouts in SHAPES ("M N K layout;...") over TILES and EXTRA (see that script) into
# $OUT/$TAG.txt (TAG defaults to tiles). Table printed last.
set -uo pipefail
out=${OUT:-/tmp/out} b=/tmp/tg-build
mkdir -p "$out"
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
ninja -C $b tilegrid_exe > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -20; exit 1; }
export TILEGRID_CACHE_DIR=/tmp/tg-cache
IFS=';' read -ra shapes <<< "${SHAPES:-4096 4096 4096 TN}"
for shape in "${shapes[@]}"; do
  set -- $shape
  echo "== $1x$2x$3 $4"
  bench/sm80_tile_sweep.sh $b/tilegrid "$1" "$2" "$3" "$4"
done | tee "$out/${TAG:-tiles}.txt"
