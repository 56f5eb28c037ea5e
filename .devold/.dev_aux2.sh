#!/bin/bash
source bench/device_build.sh
mkdir -p $OUT/logs
TG_CMAKE_ARGS="-DTILEGRID_BUILD_BENCHMARKS=OFF -DTILEGRID_BUILD_PYTHON=OFF -DTILEGRID_BUILD_TESTS=OFF" tg_build $OUT/logs tilegrid_exe
echo "built $(date +%T)"
timeout 420 $b/tilegrid bench --suite bench/suites/consumers.json --filter 'gelu-aux' --seconds 0 --turns 300 --json $OUT/consumers_aux_h200.json > $OUT/logs/bench.log 2>&1
echo "rc $? $(date +%T)"
$b/tilegrid bench --from $OUT/consumers_aux_h200.json --format dataset > $OUT/consumers_aux_h200.csv
cat $OUT/consumers_aux_h200.csv
