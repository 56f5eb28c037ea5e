#!/usr/bin/env bash
# GPU machine: build tilegrid, then bench/ncu_bounds.sh over issue #6's short rows (and the sm_80
# kernel at 4096^3), then the board power and SM clock while our kernel and cuBLAS's each run for a
# few seconds (POWER_CASES="M N K arch;...", ITERS runs each).
# Usage (device): bench/device_bounds.sh   (logs under $OUT)
set -uo pipefail
IFS=$' \t\n'
OUT=${OUT:-/tmp/out}
source bench/device_build.sh
tg_build "$OUT/build" tilegrid_exe
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm,driver_version --format=csv > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"
CASES=${CASES:-"4096^3 TN|--m 4096 --n 4096 --k 4096 --arch sm_90;\
4000^3 TN|--m 4000 --n 4000 --k 4000 --arch sm_90;\
4000^3 TN 128x256 c2*|--m 4000 --n 4000 --k 4000 --arch sm_90 --cta-tile 128x256x64 --cluster 2;\
5000x3000x4096 TN|--m 5000 --n 3000 --k 4096 --arch sm_90;\
6144^3 TN|--m 6144 --n 6144 --k 6144 --arch sm_90;\
4096^3 TN sm_80*|--m 4096 --n 4096 --k 4096 --arch sm_80"}
CASES=$CASES bench/ncu_bounds.sh $b/tilegrid "$OUT/ncu" | tee "$OUT/ncu_table.txt"
# Board power and SM clock while our kernel, then cuBLAS's, runs ITERS times (each after an L2 flush,
# the two in turn as `tilegrid run` times them). The samples of the first and last third of the busy
# stretch are ours and cuBLAS's.
field=power.draw.instant
[[ $(nvidia-smi --query-gpu=$field --format=csv,noheader,nounits 2> /dev/null) =~ ^[0-9.]+$ ]] || field=power.draw
IFS=';' read -ra power_cases <<< "${POWER_CASES:-4096 4096 4096 sm_90;4000 4000 4000 sm_90;5000 3000 4096 sm_90;4096 4096 4096 sm_80}"
for mnka in "${power_cases[@]}"; do
  read -r m n k arch <<< "$mnka"
  opts="--m $m --n $n --k $k --arch $arch"
  nvidia-smi --query-gpu=$field,clocks.sm --format=csv,noheader,nounits -lms 25 > "$OUT/power.csv" &
  smi=$!
  sleep 1
  # shellcheck disable=SC2086
  $b/tilegrid run $opts --iters "${ITERS:-12000}" --no-check > "$OUT/power_run.log" 2>&1
  sleep 0.3
  kill $smi
  tail -3 "$OUT/power_run.log" | sed 's/^/  /'
  python3 - "$OUT/power.csv" "$opts" "$field" <<'PY'
import sys, statistics
rows = []
for l in open(sys.argv[1]):
    try:
        rows.append(tuple(float(x) for x in l.split(',')))
    except ValueError:
        pass
busy = [i for i, r in enumerate(rows) if r[0] > 250]
if not busy:
    sys.exit(print(sys.argv[2], 'no busy samples', rows[:3]))
span = rows[busy[0]:busy[-1] + 1]
third = max(1, len(span) // 3)
for who, part in (('ours', span[:third]), ('cuBLAS', span[-third:])):
    print('%-28s %-7s %s: %3d samples, median %.0f W, clock median %.0f MHz (min %.0f)' % (
        sys.argv[2], who, sys.argv[3], len(part), statistics.median(r[0] for r in part),
        statistics.median(r[1] for r in part), min(r[1] for r in part)))
PY
done | tee "$OUT/power_table.txt"
(cd "$OUT" && tar czf ncu.tgz ncu && rm -rf ncu)
echo; cat "$OUT/ncu_table.txt"
