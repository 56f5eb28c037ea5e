#!/usr/bin/env bash
# Kernels that read their shape at launch, on the GPU: a Release build, the gpu-labelled tests, then
# the A/B of issue #6's table (each shape and layout: the default schedule reading its shape at
# launch, the same schedule with the shape compiled in, and cuBLAS, checked and timed in turns in one
# process, median of ITERS runs after an L2 flush each), for each kernel family in ARCHS.
# Then the distinct kernels M = 1..8192 at N = K = 4096 needs, each compiled cold with NVRTC.
# Usage: [ARCHS="sm_90 sm_80"] [TESTS=0] [KERNELS=0] bench/device_runtime_shape.sh [ITERS]
#   (on the GPU machine; logs under $OUT: ctest.log, ab.txt, kernels_m.txt, ab_json.tar.gz)
set -uo pipefail
source "$(dirname "$0")/device_build.sh"
out=${OUT:-/tmp/out}
iters=${1:-200}
archs=${ARCHS:-sm_90}
json=/tmp/tg-ab-json
mkdir -p "$out" "$json"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt" 2>&1
tg_build "$out"
if [ "${TESTS:-1}" != 0 ]; then
  ctest --test-dir $b --timeout 600 -j 1 -L gpu --output-on-failure > "$out/ctest.log" 2>&1
  grep -E "tests passed|\(Failed\)|Timeout" "$out/ctest.log" | head -20
fi
printf '%-6s %-16s %-3s %9s %9s %9s %8s %8s %s\n' arch shape layout launch compiled cuBLAS ratio vs_cublas check > "$out/ab.txt"
for arch in $archs; do
  for layout in TN NT; do
    for shape in "4096 4096 4096" "6144 6144 6144" "8192 8192 8192" "4000 4000 4000" "5000 3000 4096" "4097 4097 4096"; do
      read -r m n k <<< "$shape"
      file="$json/ab_${arch}_${m}x${n}x${k}_$layout.json"
      $b/tilegrid run --arch "$arch" --m "$m" --n "$n" --k "$k" --layout "$layout" --iters "$iters" \
        --versus-specialized --format json > "$file" 2>&1
      python3 - "$file" "$arch" "$m" "$n" "$k" "$layout" >> "$out/ab.txt" <<'PY'
import json, sys
path, arch, m, n, k, layout = sys.argv[1:]
try:
    j = json.load(open(path))
    s = j["specialized"]
    ok = j["check"]["passed"] and s["check_passed"]
    print(f'{arch:<6} {m}x{n}x{k:<6} {layout:<3} {j["ours"]["tflops"]:9.1f} {s["tflops"]:9.1f} {j["cublas"]["tflops"]:9.1f} '
          f'{s["ours_over_it"]:8.4f} {j["ratio"]:8.3f} {"PASS" if ok else "FAIL"}')
except Exception as e:
    print(f'{arch} {m}x{n}x{k} {layout}: no result ({e}); see {path}')
PY
    done
  done
done
tar -czf "$out/ab_json.tar.gz" -C "$json" .
cat "$out/ab.txt"
if [ "${KERNELS:-1}" != 0 ]; then
  $b/tilegrid kernels --m 1:8192 --n 4096 --k 4096 --compile > "$out/kernels_m.txt" 2>&1
  tail -1 "$out/kernels_m.txt"
fi
