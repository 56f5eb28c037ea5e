#!/usr/bin/env bash
# Where the instructions and L2 sectors of tilegrid's kernel and cuBLAS's go, for one shape: Nsight
# Compute (clock control off) with the instruction statistics, the source counters and the L2 sectors
# by source unit, then per-opcode warp-instruction counts side by side (from the SASS source page).
# Usage: bench/ncu_instmix.sh <tilegrid binary> <out dir> <tilegrid run options...>
set -uo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
ncu --query-metrics --chip gh100 2> /dev/null | grep -E "^lts__t_(sectors|requests)_srcunit|^lts__t_sectors_op|ltcfabric" \
  > "$out/l2_metrics.txt"
l2=$(grep -oE "^lts__t_sectors_srcunit_[a-z0-9_]+" "$out/l2_metrics.txt" | grep -vE "_op_|lookup" | sort -u | sed 's/$/.sum/' | paste -sd,)
for who in tilegrid_ nvjet; do
  ncu --clock-control none --section InstructionStats --section SourceCounters --section SpeedOfLight \
      --metrics "lts__t_sectors.sum,lts__t_sectors_srcunit_tex_op_read.sum${l2:+,$l2}" \
      -k "regex:$who" --launch-skip 2 --launch-count 1 -f -o "$out/$who" \
      "$bin" run "$@" --iters 4 --no-check > "$out/$who.log" 2>&1 || { tail -5 "$out/$who.log"; continue; }
  ncu -i "$out/$who.ncu-rep" --page details --print-details all > "$out/$who.txt" 2>&1
  ncu -i "$out/$who.ncu-rep" --page raw --csv > "$out/$who.raw.csv" 2>&1
  ncu -i "$out/$who.ncu-rep" --page source --csv --print-source sass > "$out/$who.sass.csv" 2>&1
done
python3 - "$out" <<'PY'
import csv, collections, sys, os
out = sys.argv[1]
mix = {}
for who in ('tilegrid_', 'nvjet'):
    path = os.path.join(out, who + '.sass.csv')
    counts = collections.Counter()
    try:
        rows = list(csv.reader(open(path)))
        head = next(i for i, r in enumerate(rows) if any('Source' == c for c in r))
        cols = rows[head]
        src = cols.index('Source')
        ex = next(i for i, c in enumerate(cols) if c.startswith('Warp Instructions Executed') or c == 'Instructions Executed')
        for r in rows[head + 1:]:
            if len(r) <= max(src, ex) or not r[ex].replace(',', '').replace('.', '').isdigit():
                continue
            op = r[src].strip().split()
            if not op:
                continue
            name = op[1] if op[0].startswith('@') and len(op) > 1 else op[0]
            counts[name.split('.')[0]] += float(r[ex].replace(',', ''))
    except Exception as e:
        print(who, 'source page unreadable:', e)
    mix[who] = counts
ops = sorted(set(mix['tilegrid_']) | set(mix['nvjet']), key=lambda o: -(mix['tilegrid_'][o] + mix['nvjet'][o]))
print('%-14s %12s %12s' % ('opcode', 'tilegrid', 'cuBLAS'))
for o in ops[:40]:
    print('%-14s %12.0f %12.0f' % (o, mix['tilegrid_'][o], mix['nvjet'][o]))
print('%-14s %12.0f %12.0f' % ('total', sum(mix['tilegrid_'].values()), sum(mix['nvjet'].values())))
PY
for who in tilegrid_ nvjet; do
  echo "== $who L2"; grep -E "lts__t_sectors" "$out/$who.txt" | head -20
done
