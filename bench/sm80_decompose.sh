#!/usr/bin/env bash
# Device run: where the sm_80 kernel's time goes. Times, in the same process and alternating, the
# generated kernel as it is ("cur"), without its global->shared copies ("nocopy": the mma.sync run on
# whatever the stages hold) and without its mma.sync ("nomath": copies, ldmatrix, barriers and
# epilogue only), for SHAPES (default 4096^3 and 8192^3 TN). Results are unchecked by design; compare
# the TFLOP/s-equivalent columns. Logs under $OUT/ab (bench/ab_variants.sh).
set -uo pipefail
variants=/tmp/tg-decompose
rm -rf $variants
mkdir -p $variants/nocopy/codegen/templates $variants/nomath/codegen/templates
template=tilegrid/codegen/templates/sm80_gemm.cu
python3 - "$template" $variants <<'PY'
import sys
src, out = sys.argv[1], sys.argv[2]
s = open(src).read()
copies = "    @COPY_A@\n    @COPY_B@\n"
mma = "tg_mma_m16n8k16<@IS_BF16@>(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);"
assert copies in s and mma in s, "bench/sm80_decompose.sh: the template changed; update the patterns"
# Placeholders stay, inside code the compiler skips: the template filler insists each one is used.
open(f"{out}/nocopy/{src}", "w").write(s.replace(copies, "#if 0\n" + copies + "#endif\n"))
open(f"{out}/nomath/{src}", "w").write(
    s.replace(mma, "acc[mi][ni][0] += __uint_as_float(a[mi][0] ^ b[ni][1]);  // @IS_BF16@"))
PY
SHAPES=${SHAPES:-"4096 4096 4096 TN --no-check;8192 8192 8192 TN --no-check"} VARIANTS=$variants \
  "$(dirname "$0")/ab_variants.sh"
