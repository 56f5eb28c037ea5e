#!/bin/bash
source bench/device_build.sh
mkdir -p $OUT/logs
TG_CMAKE_ARGS="-DTILEGRID_BUILD_BENCHMARKS=OFF -DTILEGRID_BUILD_PYTHON=OFF -DTILEGRID_BUILD_TESTS=OFF" tg_build $OUT/logs tilegrid_exe
echo "built $(date +%T)"
timeout 300 $b/tilegrid bench --suite .dev_epilogues.json --seconds 0 --turns 300 --json $OUT/epilogues_h200.json > $OUT/logs/bench.log 2>&1
echo "rc $? $(date +%T)"
$b/tilegrid bench --from $OUT/epilogues_h200.json --format dataset | cut -d, -f1-3,6,8,9,10,11
