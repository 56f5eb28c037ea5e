#!/bin/bash
source bench/device_build.sh
mkdir -p $OUT/logs
TG_CMAKE_ARGS="-DTILEGRID_BUILD_BENCHMARKS=OFF -DTILEGRID_BUILD_PYTHON=OFF -DTILEGRID_BUILD_TESTS=OFF" tg_build $OUT/logs tilegrid_exe
echo "built $(date +%T)"
run() { # tool name args...
  local tool=$1 name=$2; shift 2
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $b/tilegrid run "$@" --iters 0 --baseline none --reference cpu > $OUT/logs/$name.log 2>&1
  echo "$name rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|FAIL' $OUT/logs/$name.log | tr '\n' ' ' | cut -c1-200)"
}
C="alpha * acc + beta * c"; A="gelu_tanh(acc + bias[n]); aux = acc + bias[n]"
run memcheck c_coop --m 2048 --n 2048 --k 128 --epilogue "$C" --pingpong off
run racecheck c_coop_race --m 2048 --n 2048 --k 128 --epilogue "$C" --pingpong off
run racecheck c_pp_race --m 2048 --n 2048 --k 128 --epilogue "$C" --pingpong on --cta-tile 128,128,64
run synccheck c_pp_sync --m 2048 --n 2048 --k 128 --epilogue "$C" --pingpong on --cta-tile 128,128,64
run memcheck aux_pp --m 2048 --n 2048 --k 128 --epilogue "$A" --pingpong on --cta-tile 128,128,64
run racecheck aux_coop_race --m 2048 --n 2048 --k 128 --epilogue "$A" --pingpong off
