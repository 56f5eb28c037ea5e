#!/usr/bin/env bash
# The sm_80 speed table of issue #5: default schedules, bf16, TN and NT, next to cuBLAS in the same
# process (median of 30 event-timed runs, L2 flushed before each). Usage: bench/sm80_speed_table.sh <tilegrid>
set -uo pipefail
bin=$1
printf "%-20s %-7s %-8s %-8s %-6s %-6s %s\n" shape layout ours cublas ratio check schedule
for shape in "2048 2048 2048" "4096 4096 4096" "8192 8192 8192" "4000 4000 4000" "4097 4097 4096"; do
  for layout in TN NT; do
    set -- $shape
    "$bin" run --m "$1" --n "$2" --k "$3" --layout "$layout" --arch sm_80 --iters 30 --format json 2>&1 |
      python3 -c "
import json, sys
j = json.load(sys.stdin)
print('%-20s %-7s %-8.1f %-8.1f %-6.2f %-6s %s' % ('${1}x${2}x${3}', '$layout', j['ours']['tflops'], j['cublas']['tflops'],
      j['ratio'], 'PASS' if j['check']['passed'] else 'FAIL', j['params']))" 2>/dev/null || echo "${1}x${2}x${3} $layout: error"
  done
done
