#!/usr/bin/env bash
# Fresh build, the gpu-labelled tests, the sm_90 heuristic's tile against the other ranked shapes on
# problems it was not calibrated on (bench/tile_ab.sh), then the sm_90 speed table.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
mkdir -p "$out"
tg_build "$out"
timeout 300 ctest --test-dir $b --timeout 300 -j 1 -L gpu --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest.log" | head -20
SHAPES=${SHAPES:?} OPTIONS=${OPTIONS:-"|--cta-tile 128,256,64 --cluster 2|--cta-tile 192,160,64 --cluster 1"} \
  bench/tile_ab.sh $b/tilegrid > "$out/tile_ab.txt" 2>&1
[ "${TABLE:-1}" = 1 ] && bench/sm90_speed_table.sh $b/tilegrid > "$out/sm90.txt" 2>&1
sort -s -k1,1 "$out/tile_ab.txt"
cat "$out/sm90.txt" 2>/dev/null
