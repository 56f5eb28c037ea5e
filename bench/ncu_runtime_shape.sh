#!/usr/bin/env bash
# Nsight Compute of one schedule's kernel twice, from one `tilegrid run` each: reading its shape at
# launch, and with the shape compiled in (--specialize-shape). Headline metrics side by side.
# Usage: bench/ncu_runtime_shape.sh <tilegrid binary> <out dir> <tilegrid run options...>
set -uo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
for mode in launch compiled; do
  extra=()
  [ "$mode" = compiled ] && extra=(--specialize-shape)
  ncu --clock-control none --set full -k "regex:tilegrid_" --launch-skip 2 --launch-count 1 -f -o "$out/$mode" \
      "$bin" run "$@" "${extra[@]}" --iters 4 --baseline none --no-check > "$out/$mode.log" 2>&1 ||
    { tail -5 "$out/$mode.log"; continue; }
  ncu -i "$out/$mode.ncu-rep" --page details --print-details all > "$out/$mode.txt" 2>&1
done
python3 - "$out/launch.txt" "$out/compiled.txt" <<'PY'
import re, sys
wanted = ['Duration', 'SM Frequency', 'Executed Instructions', 'Executed Ipc Active', 'Issue Slots Busy',
          'Registers Per Thread', 'Warp Cycles Per Issued Instruction', 'Compute (SM) Throughput',
          'Memory Throughput', 'L2 Hit Rate', 'DRAM Throughput', 'Achieved Occupancy', 'Grid Size']
def read(path):
    vals = {}
    try:
        for line in open(path):
            m = re.match(r'\s{4}(\S.*?)\s{2,}(\S+)\s+(\S+)\s*$', line)
            if m and m.group(1) not in vals:
                vals[m.group(1)] = m.group(2) + ' ' + m.group(3)
    except OSError:
        pass
    return vals
a, b = read(sys.argv[1]), read(sys.argv[2])
print(f'{"metric":<36} {"shape at launch":>22} {"shape compiled in":>22}')
for w in wanted:
    print(f'{w:<36} {a.get(w, "-"):>22} {b.get(w, "-"):>22}')
PY
