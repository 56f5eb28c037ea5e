#!/usr/bin/env bash
# One device call for sm_90 work: build the CLI, then the smoke shapes in both layouts.
set -uo pipefail
out=${OUT:-/tmp/out} b=/tmp/tg-build
mkdir -p "$out"
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILEGRID_BUILD_TESTS=OFF -DTILEGRID_BUILD_BENCHMARKS=OFF \
  > "$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
ninja -C $b tilegrid > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -20; exit 1; }
"$@" 2>&1 | tee "$out/result.txt"
