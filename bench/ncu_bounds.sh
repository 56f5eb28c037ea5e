#!/usr/bin/env bash
# What bounds a kernel: Nsight Compute (clock control off, one launch after two warm-up launches) of
# tilegrid's kernel and cuBLAS's for each case, with the clock, the tensor pipe, the shared-memory
# banks (reads and writes, which count wgmma operand reads and TMA and cp.async writes too), the LSU's
# shared-memory wavefronts (ldmatrix and ld/st.shared; cp.async fills do not show there), L2 and DRAM
# traffic. The tensor pipe's share is of the SMs' active cycles; the others are of elapsed cycles.
# Usage: CASES="label|run options;..." bench/ncu_bounds.sh <tilegrid binary> <out dir>
#   e.g. CASES="4000^3 TN|--m 4000 --n 4000 --k 4000 --arch sm_90" bench/ncu_bounds.sh build/tilegrid out
# A case whose label ends in '*' profiles only tilegrid's kernel.
set -uo pipefail
bin=$1 out=$2
mkdir -p "$out"
ncu --query-metrics --chip gh100 > "$out/metrics_gh100.txt" 2>&1
wanted=(gpu__time_duration.sum sm__cycles_elapsed.avg.per_second
  sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
  sm__inst_executed_pipe_tensor_op_gmma.sum sm__inst_executed_pipe_tensor_op_hmma.sum
  l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed
  l1tex__data_bank_reads.sum l1tex__data_bank_writes.sum l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed
  l1tex__throughput.avg.pct_of_peak_sustained_elapsed l1tex__m_xbar2l1tex_read_bytes.sum
  lts__t_sectors_srcunit_tex_op_read.sum lts__t_requests_srcunit_tex_op_read.sum dram__bytes_read.sum
  smsp__inst_executed.sum sm__throughput.avg.pct_of_peak_sustained_elapsed)
metrics=()
for m in "${wanted[@]}"; do
  grep -qE "^${m%%.*}[[:space:]]" "$out/metrics_gh100.txt" && metrics+=("$m")
done
list=$(IFS=,; echo "${metrics[*]}")
echo "metrics: $list" > "$out/metrics_used.txt"
IFS=';' read -ra cases <<< "${CASES:?}"
i=0
for c in "${cases[@]}"; do
  label=${c%%|*} opts=${c#*|}
  i=$((i + 1))
  whos=(tilegrid_)
  [[ $label != *'*' ]] && whos+=(nvjet)
  for who in "${whos[@]}"; do
    # shellcheck disable=SC2086
    ncu --clock-control none --metrics "$list" -k "regex:$who" --launch-skip 2 --launch-count 1 \
        -f -o "$out/case${i}_$who" "$bin" run $opts --iters 4 --no-check > "$out/case${i}_$who.log" 2>&1
    ncu -i "$out/case${i}_$who.ncu-rep" --csv --page raw --print-units base > "$out/case${i}_$who.csv" 2>&1
    echo "$label|$who|$out/case${i}_$who.csv" >> "$out/index.txt"
  done
done
python3 - "$out/index.txt" <<'PY'
import csv, sys
# (metric, column, scale to the printed unit); --print-units base gives ns, cycle/second, bytes, counts.
cols = [('gpu__time_duration.sum', 'us', 1e-3), ('sm__cycles_elapsed.avg.per_second', 'GHz', 1e-9),
        ('sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active', 'tensor%', 1),
        ('l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed', 'bankRd%', 1),
        ('l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed', 'bankWr%', 1),
        ('l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed', 'lsuSh%', 1),
        ('l1tex__data_bank_reads.sum', 'bankRdM', 1e-6), ('l1tex__data_bank_writes.sum', 'bankWrM', 1e-6),
        ('lts__t_sectors_srcunit_tex_op_read.sum', 'L2sectM', 1e-6), ('dram__bytes_read.sum', 'dramGB', 1e-9),
        ('smsp__inst_executed.sum', 'instM', 1e-6)]
print('%-28s %-9s' % ('case', 'kernel') + ''.join('%9s' % c for _, c, _ in cols))
for line in open(sys.argv[1]):
    label, who, path = line.rstrip('\n').split('|')
    try:
        table = [r for r in csv.reader(open(path)) if r]
        k0 = next(i for i, r in enumerate(table) if 'gpu__time_duration.sum' in r)
        head, vals = table[k0], table[k0 + 2]
    except (OSError, StopIteration, IndexError):
        print('%-28s %-9s (no profile: see its .log)' % (label, who.rstrip('_'))); continue
    cells = []
    for name, _, s in cols:
        try:
            v = float(vals[head.index(name)].replace(',', '')) * s
            cells.append(('%9.3f' if name.endswith('per_second') else '%9.1f') % v)
        except ValueError:
            cells.append('%9s' % '-')
    print('%-28s %-9s' % (label, who.rstrip('_')) + ''.join(cells))
PY
