#!/usr/bin/env bash
# One device call for sm_80 tuning: fresh build, the sm_80 GPU tests, the speed table, an ncu profile.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
mkdir -p "$out"
tg_build "$out"
ctest --test-dir $b -L gpu -R "Sm80" > "$out/gpu_tests.log" 2>&1; grep -E "tests passed|Failed" "$out/gpu_tests.log" | head
bench/sm80_speed_table.sh $b/tilegrid > "$out/speed.txt" 2>&1
bench/ncu_profile.sh $b/tilegrid "$out/ncu" --m 4096 --n 4096 --k 4096 --arch sm_80 > "$out/ncu_summary.txt" 2>&1
cat "$out/ncu_summary.txt"; cat "$out/speed.txt"
