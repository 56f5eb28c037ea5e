#!/usr/bin/env bash
# 128-row consumer warpgroups (two wgmma m64 blocks each) on an H100: fresh build, the gpu tests of
# their variants (fp64-checked small variants, stream-K cases), then a same-process A/B against the
# default schedule (bench/tile_ab.sh). $OUT: ctest.log, ab.log.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
mkdir -p "$out"
tg_build "$out/build"
ctest --test-dir $b --timeout 400 -L gpu -R "${TESTS:-256x152}" --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest.log" | head -20
SHAPES=${SHAPES:-"5000 3000 4096 TN;2000 5000 4096 TN;4096 4096 4096 TN"} \
  OPTIONS=${OPTIONS:-"|--cta-tile 256,152,64 --swap-ab on|--cta-tile 256,152,64 --swap-ab off|--cta-tile 256,128,64 --warp-tile 128,128"} \
  bench/tile_ab.sh $b/tilegrid > "$out/ab.log" 2>&1
sort "$out/ab.log"
