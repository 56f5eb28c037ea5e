#!/usr/bin/env bash
# Times the generated sm_80 GEMM for several CTA/warp tiles and stage counts at one problem size,
# next to cuBLAS. Usage: bench/sm80_tile_sweep.sh <tilegrid binary> M N K [layout]
# TILES="cta warp stages;..." replaces the default list; ITERS sets the timed runs (20); EXTRA adds
# run options (e.g. "--persistent on").
set -uo pipefail
bin=$1 m=$2 n=$3 k=$4 layout=${5:-TN}
printf "%-12s %-6s %-6s %-10s %-10s %-6s\n" cta warp stages ours_tflops cublas ratio
default_tiles="128,128,64 64,32 4;128,128,64 64,64 4;128,128,32 64,64 5;128,256,32 64,64 4;128,256,64 64,64 3;256,128,32 64,64 4;256,128,64 64,64 3"
IFS=';' read -ra configs <<< "${TILES:-$default_tiles}"
for config in "${configs[@]}"; do
  set -- $config
  line=$("$bin" run --m "$m" --n "$n" --k "$k" --layout "$layout" --arch sm_80 --cta-tile "$1" --warp-tile "$2" \
         --stages "$3" --iters "${ITERS:-20}" ${EXTRA:-} --format json 2>&1)
  ours=$(echo "$line" | python3 -c "import json,sys; j=json.load(sys.stdin); print('%.1f %.1f %.2f %s' % (j['ours']['tflops'], j['cublas']['tflops'], j['ratio'], j['check']['passed']))" 2>/dev/null || echo "error: $(echo "$line" | tail -1)")
  printf "%-12s %-6s %-6s %s\n" "$1" "$2" "$3" "$ours"
done
