#!/usr/bin/env bash
# Which kernels cuBLAS and tilegrid launch for a shape: name, grid, block, cluster, registers, shared
# memory and duration of every GEMM kernel of one `tilegrid run`, from Nsight Compute (clock control
# off). cuBLAS's kernel names carry its tile, cluster and stage choices.
# Usage: bench/cublas_kernels.sh <tilegrid binary> <out dir> "M N K LAYOUT" ...
set -uo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
for shape in "$@"; do
  set -- $shape
  tag="$1x$2x$3_$4"
  ncu --clock-control none --section LaunchStats --metrics gpu__time_duration.sum --csv --page details \
      "$bin" run --m "$1" --n "$2" --k "$3" --layout "$4" --arch sm_90 --iters 2 > "$out/$tag.csv" 2> "$out/$tag.err"
  python3 - "$out/$tag.csv" "$tag" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    print(sys.argv[2], 'no ncu rows'); sys.exit()
head, body = rows[0], rows[1:]
col = {name: i for i, name in enumerate(head)}
kernels = collections.OrderedDict()
for r in body:
    key = (r[col['ID']], r[col['Kernel Name']])
    kernels.setdefault(key, {})[r[col['Metric Name']]] = r[col['Metric Value']]
wanted = ('Grid Size', 'Block Size', 'Cluster Size', 'Registers Per Thread', 'Dynamic Shared Memory Per Block',
          'Static Shared Memory Per Block', 'Duration')
seen = set()
for (kid, name), m in kernels.items():
    if not any(s in name for s in ('gemm', 'tilegrid_sm', 'xmma', 'cutlass', 'sm90')):
        continue
    if name in seen:
        continue
    seen.add(name)
    print(sys.argv[2], name[:160])
    print('    ', '; '.join('%s=%s' % (w, m.get(w, '?')) for w in wanted))
PY
done
