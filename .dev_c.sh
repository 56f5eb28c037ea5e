#!/bin/bash
source bench/device_build.sh
mkdir -p $OUT/logs
TG_CMAKE_ARGS="-DTILEGRID_BUILD_BENCHMARKS=OFF -DTILEGRID_BUILD_PYTHON=OFF" tg_build $OUT/logs tilegrid_exe gpu_tests
(cd .devold && cmake -S . -B /tmp/tg-old -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILEGRID_BUILD_BENCHMARKS=OFF -DTILEGRID_BUILD_PYTHON=OFF -DTILEGRID_BUILD_TESTS=OFF > $OUT/logs/old_configure.log 2>&1 && ninja -C /tmp/tg-old tilegrid_exe > $OUT/logs/old_build.log 2>&1) || { tail -5 $OUT/logs/old_build.log; exit 1; }
echo "builds done $(date +%T)"
$b/tests/gpu_tests --gtest_filter='FusedEpilogue.*' > $OUT/logs/fused_epilogue_tests.log 2>&1; tail -3 $OUT/logs/fused_epilogue_tests.log
grep -E "FAILED|Failure" -A4 $OUT/logs/fused_epilogue_tests.log | head -30
timeout 200 /tmp/tg-old/tilegrid bench --suite .devold/bench/suites/consumers.json --filter 'beta-c' --seconds 0 --turns 300 --json $OUT/c_old.json > $OUT/logs/bench_old.log 2>&1
echo "old rc $? $(date +%T)"
timeout 200 $b/tilegrid bench --suite bench/suites/consumers.json --filter 'beta-c' --seconds 0 --turns 300 --json $OUT/c_new.json > $OUT/logs/bench_new.log 2>&1
echo "new rc $? $(date +%T)"
$b/tilegrid bench --from $OUT/c_old.json --format dataset > $OUT/c_old.csv
$b/tilegrid bench --from $OUT/c_new.json --format dataset > $OUT/c_new.csv
cut -d, -f1-3,6,8,10 $OUT/c_old.csv; cut -d, -f1-3,6,8,10 $OUT/c_new.csv
