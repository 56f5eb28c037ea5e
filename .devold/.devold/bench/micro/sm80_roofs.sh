#!/usr/bin/env bash
# Device run: the roofs the sm_80 kernel family is judged against on this GPU. Runs the main loop
# without global memory (ldmatrix_mma_roof.cu) and the register-only mma.sync ceiling
# (mma_sync_ceiling.cu) next to the generated kernel at 4096^3 TN; the SM clock each runs at under
# ncu (--clock-control none); the roof sustained for ~60 ms with nvidia-smi sampling clock and power
# every 20 ms; and the SASS of ldgsts_offsets.cu for a few offsets (which ones LDGSTS folds).
# Logs under $OUT/roofs; the summary is printed last.
set -uo pipefail
logs=${OUT:-/tmp/out}/roofs
here=$(dirname "$0")
mkdir -p "$logs"
source "$here/../device_build.sh"
nvcc -O3 -arch=sm_90 -o /tmp/ldmatrix_mma_roof "$here/ldmatrix_mma_roof.cu" &
nvcc -O3 -arch=sm_90 -o /tmp/mma_sync_ceiling "$here/mma_sync_ceiling.cu" &
for off in 8 512 4096 131072; do
  (nvcc -arch=sm_90 -cubin -DOFF=$off -o /tmp/ldgsts_$off.cubin "$here/ldgsts_offsets.cu" &&
     cuobjdump -sass /tmp/ldgsts_$off.cubin | grep LDGSTS | head -4 | sed "s/^ */off $off: /" > "$logs/ldgsts_$off.txt") &
done
tg_build "$logs" tilegrid_exe
wait
/tmp/ldmatrix_mma_roof 4096 > "$logs/roof.txt" 2>&1
/tmp/mma_sync_ceiling > "$logs/ceiling.txt" 2>&1
$b/tilegrid run --m 4096 --n 4096 --k 4096 --arch sm_80 --iters 50 > "$logs/kernel.txt" 2>&1
ncu --clock-control none --section SpeedOfLight -k regex:smem_loop --launch-count 2 /tmp/ldmatrix_mma_roof 4096 \
  > "$logs/ncu_roof.txt" 2>&1
ncu --clock-control none --section SpeedOfLight -k regex:tilegrid --launch-skip 2 --launch-count 1 \
  $b/tilegrid run --m 4096 --n 4096 --k 4096 --arch sm_80 --iters 3 --no-check > "$logs/ncu_kernel.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 20 > "$logs/smi.csv" &
smi=$!
/tmp/ldmatrix_mma_roof 65536 > "$logs/roof_sustained.txt" 2>&1
kill $smi
cat "$logs"/ldgsts_*.txt
echo "== clocks and power while the roof ran for ~60 ms a launch (samples, MHz, W)"
awk -F', ' '{print $2, int($3 / 50) * 50 " W"}' "$logs/smi.csv" | sort | uniq -c | sort -k1 -n -r | head -8
echo "== under ncu: roof (two launches), then the generated kernel"
grep -hE "SM Frequency|Duration|Compute \(SM\) Throughput|L1/TEX Cache" "$logs/ncu_roof.txt" "$logs/ncu_kernel.txt"
echo "== sustained roof"
cat "$logs/roof_sustained.txt"
echo "== mma.sync ceiling"
cat "$logs/ceiling.txt"
echo "== roof (4096 K tiles a launch)"
cat "$logs/roof.txt"
echo "== generated kernel"
tail -2 "$logs/kernel.txt"
