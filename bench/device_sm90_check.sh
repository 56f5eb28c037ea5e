#!/usr/bin/env bash
# One device call: full build, the sm_90 GPU tests, then an ncu profile of one sm_90 kernel.
# Usage: bench/device_sm90_check.sh [tilegrid run options for the profile...]
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
mkdir -p "$out"
tg_build "$out"
ctest --test-dir $b -L gpu -R "Sm90" --timeout 120 > "$out/gpu_tests.log" 2>&1
grep -E "tests passed|Failed|Timeout" "$out/gpu_tests.log" | head -20
if [ $# -gt 0 ]; then
  bench/ncu_profile.sh $b/tilegrid "$out/ncu" "$@" > "$out/ncu_summary.txt" 2>&1
  rm -f "$out/ncu/raw.csv"
  grep -E "Duration|Throughput|Pipe Tensor|Stall|Registers Per|Issue Slots|L2 Hit|DRAM|SM Frequency" "$out/ncu/details.txt" | head -40
fi
