#!/usr/bin/env bash
# Builds tilegrid in a fresh folder and runs the whole test suite, GPU tests included. Meant for a
# machine with a GPU (the device tool runs it from the repository root); logs go to $OUT if set.
set -uo pipefail
out="${OUT:-/tmp/tilegrid-gpu-check}"
build="${BUILD_DIR:-/tmp/tilegrid-build}"
mkdir -p "$out"
rm -rf "$build"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv > "$out/gpu.txt" 2>&1
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head -30; exit 1; }
ctest --test-dir "$build" --output-on-failure -j 4 "$@" > "$out/ctest.log" 2>&1
status=$?
grep -E "^\s*[0-9]+/[0-9]+ Test.*(Failed|Skipped|Not Run)|tests passed|Label|unit |nvrtc |gpu " "$out/ctest.log" | tail -20
exit $status
