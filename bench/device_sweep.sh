#!/usr/bin/env bash
# Issue #7 on the GPU: build, the sweep gpu tests, `tilegrid sweep` for the README's problems (sm_90,
# and sm_80 at 4000^3 where split-merge's overhang launches real CTAs), the Google Benchmark sweep,
# and Nsight Compute counters for divisible vs non-divisible shapes. $OUT gets a few files
# (the device returns at most 8): sweeps.tar.gz, bench_sweep.json/.txt, ncu.txt, logs.tar.gz.
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out} w=/tmp/tg-work
mkdir -p "$out" $w/sweeps
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $w/gpu.txt 2>&1
tg_build $w
ctest --test-dir $b --timeout 300 -R "GpuSweep|bench_" --output-on-failure > $w/ctest.log 2>&1
grep -E "tests passed|\(Failed\)|Timeout" $w/ctest.log | head
sweep() {  # name, then sweep arguments
  local name=$1; shift
  $b/tilegrid sweep "$@" --iters 40 --out $w/sweeps/$name.csv --plot $w/sweeps/$name.svg > $w/sweeps/$name.txt 2>&1
  echo "== $name: $*"; grep -E "^ +[0-9]+ " $w/sweeps/$name.txt | head -3; grep -E "^cuBLAS|^best|^heuristic|FAIL" $w/sweeps/$name.txt
}
if [ "${SKIP_SWEEPS:-0}" != 1 ]; then
  sweep sweep_8192 --m 8192 --n 8192 --k 8192
  sweep sweep_4000 --m 4000 --n 4000 --k 4000
  sweep sweep_5000x3000_tn --m 5000 --n 3000 --k 4096
  sweep sweep_5000x3000_nt --m 5000 --n 3000 --k 4096 --layout NT
  sweep sweep_4000_sm80 --m 4000 --n 4000 --k 4000 --arch sm_80
  tar czf "$out/sweeps.tar.gz" -C $w sweeps
fi
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  $b/bench/bench_grid_sweep --benchmark_min_time=0.2 --benchmark_out="$out/bench_sweep.json" \
    --benchmark_out_format=json > "$out/bench_sweep.txt" 2>&1
  echo "== bench_grid_sweep: $(grep -c '^sweep/' "$out/bench_sweep.txt") sweep rows"; grep -E "^cuBLAS/" "$out/bench_sweep.txt"
fi
if [ "${SKIP_NCU:-0}" != 1 ]; then
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second
  for shape in "4096 4096 4096 TN" "4000 4000 4000 TN" "5000 3000 4096 TN" "5000 3000 4096 NT"; do
    set -- $shape
    echo "== ncu $shape" >> "$out/ncu.txt"
    ncu --clock-control none --metrics $metrics -k regex:tilegrid_ --launch-skip 2 --launch-count 1 \
      $b/tilegrid run --m $1 --n $2 --k $3 --layout $4 --iters 3 --no-check --no-tuned 2>&1 | grep -E "^ +(gpu__|dram__|lts__|sm__)" >> "$out/ncu.txt"
  done
  cat "$out/ncu.txt"
fi
tar czf "$out/logs.tar.gz" -C $w gpu.txt configure.log build.log ctest.log
