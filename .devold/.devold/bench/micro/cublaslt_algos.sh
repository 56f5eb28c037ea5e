#!/usr/bin/env bash
# Device run: every cuBLASLt configuration of issue #5's GEMM (bf16 TN) on this GPU, with the kernel
# each launches (cublaslt_algos.cu), next to our kernels (ARCHS, default "sm_80 sm_90"), each in its
# own process. Shapes as arguments ("M N K", default 4096^3). Logs under $OUT/cublaslt; the summary
# is printed last.
set -uo pipefail
logs=${OUT:-/tmp/out}/cublaslt
here=$(dirname "$0")
mkdir -p "$logs"
source "$here/../device_build.sh"
nvcc -O3 -arch=sm_90 -o /tmp/cublaslt_algos "$here/cublaslt_algos.cu" -lcublasLt -lcuda > "$logs/nvcc.log" 2>&1 &
tg_build "$logs" tilegrid_exe
wait
[ -x /tmp/cublaslt_algos ] || { cat "$logs/nvcc.log"; exit 1; }
[ $# -gt 0 ] || set -- "4096 4096 4096"
for shape in "$@"; do
  set -- $shape
  tag="$1x$2x$3"
  ours() { for arch in ${ARCHS:-sm_80 sm_90}; do
    $b/tilegrid run --m "$1" --n "$2" --k "$3" --arch $arch --iters 30 >> "$logs/ours_$tag.txt" 2>&1
  done; }
  ours "$@"
  /tmp/cublaslt_algos "$1" "$2" "$3" > "$logs/algos_$tag.csv" 2> "$logs/summary_$tag.txt"
  ours "$@"
done
for f in "$logs"/summary_*.txt; do
  echo "== $f"
  cat "$f"
  grep -hE "^kernel|^time" "${f/summary_/ours_}"
done
