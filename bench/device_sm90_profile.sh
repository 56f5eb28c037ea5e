#!/usr/bin/env bash
# Build the CLI, sweep grid factors at one shape, and profile the default sm_90 kernel with ncu.
# Usage: bench/device_sm90_profile.sh M N K
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out} m=$1 n=$2 k=$3
mkdir -p "$out"
TG_CMAKE_ARGS="-DTILEGRID_BUILD_TESTS=OFF -DTILEGRID_BUILD_BENCHMARKS=OFF"
tg_build "$out" tilegrid
for g in m n; do
  for f in 1 2 4 8 16; do
    echo "group $g factor $f: $(bench/sm90_smoke.sh $b/tilegrid TN 20 "$m $n $k" -- --group $g --factor $f | tail -1 | cut -c1-60)"
  done
done | tee "$out/sweep.txt"
bench/ncu_profile.sh $b/tilegrid "$out/ncu" --m $m --n $n --k $k --arch sm_90 > "$out/ncu_summary.txt" 2>&1
rm -f "$out/ncu/raw.csv" "$out/ncu/profile.ncu-rep"
grep -E "Duration|Pipe Tensor Cycles|L2 Cache Throughput|SM Frequency  " "$out/ncu/details.txt" | head -6
