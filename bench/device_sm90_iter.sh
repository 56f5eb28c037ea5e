#!/usr/bin/env bash
# One device call for sm_90 work: build the CLI, then the smoke shapes in both layouts.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
mkdir -p "$out"
TG_CMAKE_ARGS="-DTILEGRID_BUILD_TESTS=OFF -DTILEGRID_BUILD_BENCHMARKS=OFF"
tg_build "$out" tilegrid
"$@" 2>&1 | tee "$out/result.txt"
