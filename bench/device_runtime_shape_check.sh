#!/usr/bin/env bash
# Build, the gpu-labelled tests, and the cold NVRTC compile of every distinct kernel that M from 1
# to 8192 at N = K = 4096 needs (tilegrid kernels --compile, sequential, caches bypassed).
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
tg_build "$out"
ctest --test-dir $b --timeout 600 -j 1 -L gpu --output-on-failure > "$out/ctest.log" 2>&1
grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest.log" | head -20
grep -E "norm rel|Which is|written between" "$out/ctest.log" | head -20
$b/tilegrid kernels --m 1:8192 --n 4096 --k 4096 --compile > "$out/kernels_m.txt" 2>&1
tail -1 "$out/kernels_m.txt"
