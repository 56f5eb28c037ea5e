#!/usr/bin/env bash
# Nsight Compute (clock control off, full section set) of tilegrid's kernel and cuBLAS's for one
# shape, from one `tilegrid run` each, then the headline metrics side by side.
# Usage: bench/ncu_compare.sh <tilegrid binary> <out dir> <tilegrid run options...>
set -uo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
for who in tilegrid_ nvjet; do
  ncu --clock-control none --set full -k "regex:$who" --launch-skip 2 --launch-count 1 -f -o "$out/$who" \
      "$bin" run "$@" --iters 4 --no-check > "$out/$who.log" 2>&1 || { tail -5 "$out/$who.log"; continue; }
  ncu -i "$out/$who.ncu-rep" --page details --print-details all > "$out/$who.txt" 2>&1
done
python3 - "$out/tilegrid_.txt" "$out/nvjet.txt" <<'PY'
import re, sys
wanted = ['Duration', 'SM Frequency', 'DRAM Frequency', 'Compute (SM) Throughput', 'Memory Throughput',
          'L1/TEX Hit Rate', 'L2 Hit Rate', 'DRAM Throughput', 'L1/TEX Cache Throughput', 'L2 Cache Throughput',
          'Executed Ipc Active', 'Issue Slots Busy', 'Registers Per Thread', 'Shared Memory Configuration Size',
          'Warp Cycles Per Issued Instruction', 'Block Limit Registers', 'Achieved Occupancy', 'Grid Size',
          'Cluster Size', 'Block Size', 'Mem Busy', 'Max Bandwidth', 'Mem Pipes Busy', 'L2 Compression']
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
print('%-36s %-22s %-22s' % ('metric', 'tilegrid', 'cuBLAS'))
for w in wanted:
    print('%-36s %-22s %-22s' % (w, a.get(w, '-'), b.get(w, '-')))
PY
