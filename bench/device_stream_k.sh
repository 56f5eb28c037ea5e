#!/usr/bin/env bash
# One device call for stream-K on sm_90: build, the sm_90 GPU suites (fp64 cases, issue #6's shapes
# and the stream-K cases against cuBLAS), then each speed-table shape with stream-K off and on.
# SANITIZE=1 adds compute-sanitizer memcheck over the stream-K cases. SHAPES ("M N K;..."), LAYOUTS
# and STREAM_K ("off on") choose the speed runs. Usage: bench/device_stream_k.sh [gtest filter]
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
TG_CMAKE_ARGS="-DTILEGRID_BUILD_BENCHMARKS=OFF"
tg_build "$out" tilegrid gpu_tests
filter=${1:-'Cases/Sm90Gemm.*:Shapes/Sm90VsCublas.*:StreamK/Sm90VsCublas.*:Sm90StreamK.*'}
timeout 300 $b/tests/gpu_tests --gtest_filter="$filter" > "$out/gpu_tests.log" 2>&1
echo "gpu tests rc=$? $(grep -cE '^\[       OK' "$out/gpu_tests.log") ok, $(grep -cE '^\[  FAILED' "$out/gpu_tests.log") failed lines"
grep -E '^\[  FAILED|Failure' "$out/gpu_tests.log" | head -20
# SHAPES: "M N K;M N K;..."
IFS=';' read -r -a shapes <<< "${SHAPES:-4096 4096 4096;4000 4000 4000;5000 3000 4096;6144 6144 6144;8192 8192 8192;4097 4097 4096}"
for sk in ${STREAM_K:-off on}; do
  for layout in ${LAYOUTS:-TN NT}; do
    bench/sm90_smoke.sh $b/tilegrid "$layout" 30 "${shapes[@]}" -- --stream-k $sk > "$out/speed_${sk}_${layout}.txt" 2>&1
  done
done
if [ "${SANITIZE:-0}" = 1 ]; then
  timeout 280 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tests/gpu_tests \
    --gtest_filter='StreamK/Sm90VsCublas.*:Sm90StreamK.*' > "$out/memcheck_stream_k.log" 2>&1
  echo "memcheck stream-K rc=$? $(grep -E 'ERROR SUMMARY' "$out/memcheck_stream_k.log" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$out/memcheck_stream_k.log" | tr '\n' ' ')"
fi
for f in "$out"/speed_*.txt; do echo "== $(basename "$f")"; cat "$f"; done
