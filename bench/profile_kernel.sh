#!/usr/bin/env bash
# Where one generated kernel's time goes, on a GPU machine, from the repository root. Two modes:
#
#   bench/profile_kernel.sh ncu TILEGRID OUT_DIR tilegrid-run-options...
#     Nsight Compute on the kernel `tilegrid run` launches (only tilegrid_sm80_* / tilegrid_sm90_*,
#     never the runtime's random fills): the full section set, warp stall reasons, and the
#     per-SASS-instruction source view (stall samples per instruction) as CSV.
#
#   bench/profile_kernel.sh phases OUT_DIR tilegrid-run-options...
#     When each CTA of an sm_90 GEMM reaches each phase. Builds a scratch copy of the source tree whose
#     kernel template reads %globaltimer (nanoseconds, one clock for the whole GPU) at these points and
#     prints them from each CTA's first consumer thread:
#       entry          the CTA starts;
#       set up         its barriers are set up and the kernel before it is complete (thread 0);
#       registers      the producer has handed its registers over (setmaxnreg);
#       split          the producer has its share of the work units;
#       first tile     the producer has its first unit's tile;
#       first issued   the producer issues its first stage's loads;
#       first landed   the consumers' first stage has landed;
#       loop end       the last unit's main loop has finished (its wgmmas completed);
#       handed over    a piece cut in step has added its sum at L2 and counted itself (pieces that do
#                      not finish their unit);
#       finisher ready the CTA that stores the unit has every other piece's sum (it then runs the
#                      epilogue);
#     then, for one timed launch (L2 flushed before it), each phase's earliest, median and latest CTA
#     in us after the first CTA's entry. The printf adds registers and time at the kernel's end, so
#     compare phases within one run, not the run's total with an uninstrumented kernel.
#     The producer's three middle points bound arithmetic that the compiler may move across them: read
#     them together, as the time from set-up to the first loads.
#     e.g. bench/profile_kernel.sh phases /tmp/phases --m 128 --n 128 --k 65536 --cta-tile 64x128x128 --cluster 2
set -euo pipefail
usage="usage: profile_kernel.sh ncu TILEGRID OUT_DIR run-options... | phases OUT_DIR run-options..."

ncu_profile() {
  local bin=$1 out=$2
  shift 2
  mkdir -p "$out"
  ncu --clock-control none --set full --import-source yes -k regex:^tilegrid_sm --launch-skip 2 --launch-count 1 \
      -f -o "$out/profile" "$bin" run "$@" --iters 3 --no-check > "$out/ncu_run.log" 2>&1 ||
    { tail -20 "$out/ncu_run.log"; exit 1; }
  ncu -i "$out/profile.ncu-rep" --page details --print-details all > "$out/details.txt" 2>&1
  ncu -i "$out/profile.ncu-rep" --page source --csv --print-source sass > "$out/sass.csv" 2>&1
  ncu -i "$out/profile.ncu-rep" --page raw --csv > "$out/raw.csv" 2>&1
  grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Stall|Achieved Occupancy" "$out/details.txt" | head -40
}

phase_times() {
  local out=$1
  shift
  mkdir -p "$out"
  local src=/tmp/tg-phase-src build=/tmp/tg-phase-build
  mkdir -p "$src"
  tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$src"
  python3 - "$src/tilegrid/codegen/templates/sm90_gemm.cu" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
now = '[] { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }()'
def between(before, after, text):  # puts text between two adjacent pieces of the template
    global s
    if s.count(before + after) != 1:
        sys.exit(f"profile_kernel.sh phases: the template changed; no single place for: {before + after!r}")
    s = s.replace(before + after, before + text + after)
between("", "  if (threadIdx.x == 0) {\n#pragma unroll 1\n    for (int s = 0; s < STAGES; ++s) {",
        "  __shared__ unsigned long long phase_entry, phase_ready, phase_regs, phase_split, phase_tile, phase_issued;\n"
        f"  if (threadIdx.x == 0) phase_entry = {now}, phase_issued = 0;\n")
between("    tg_setmaxnreg_dec<PRODUCER_REGS>();\n", "", f"    if (threadIdx.x == 0) phase_regs = {now};\n")
between("    const tg_work_split work = tg_split_for_cluster(prob.split, blockIdx.x / CM);\n", "    // The tile's width", f"    if (threadIdx.x == 0) phase_split = {now};\n")
between("        if (!tile_in(factor, cluster, unit, tile_m, tile_n)) continue;\n", "        const int batch = unit / UNITS;\n#pragma unroll 1\n        for (int kt = k_begin; kt < k_end; ++kt, ++iter) {", f"        if (iter == 0) phase_tile = {now};\n")
between("  tg_wait_for_prior_grid();\n", "", f"  if (threadIdx.x == 0) phase_ready = {now};\n")
between("    const auto load_tiles = [&](auto cluster, int stage, int kt, bool first, int tile_m, int tile_n, int batch) TG_INLINE {\n",
        "", f"      if (!phase_issued) phase_issued = {now};\n")
between("    unsigned iter = 0;\n", "    // With block scales: whether",
        "    unsigned long long phase_landed = 0, phase_loop = 0, phase_handed = 0;\n    int phase_finisher = 0;\n")
between("        wait_landed(iter);\n", "        tile_m = unit_tiles[2 * first];",
        f"        if (!phase_landed) phase_landed = {now};\n")
between("      tg_wgmma_wait<0>();\n", "      if (!BLOCK_SCALES && t == 0) tg_release_stage", f"      phase_loop = {now};\n")
between("              if (t == 0) tg_counter_arrive(&flags[last]);\n", "              continue;",
        f"              phase_handed = {now};\n")
between("", "      // C's orientation, then the way of storing it",
        f"      phase_handed = {now};\n      phase_finisher = 1;\n")
between("    if (TMA_STORE_C && prob.c_by_tma && t == 0) tg_tma_store_wait_read<0>();\n", "",
        '    if (t == 0 && consumer == 0) printf("PHASE %d %d %llu %llu %llu %llu %llu %llu %llu %llu %llu\\n", (int)blockIdx.x, '
        'phase_finisher, phase_entry, phase_landed, phase_loop, phase_handed, phase_ready, phase_issued, phase_regs, phase_split, phase_tile);\n')
open(path, "w").write(s)
PY
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILEGRID_BUILD_TESTS=OFF \
    -DTILEGRID_BUILD_BENCHMARKS=OFF -DTILEGRID_BUILD_PYTHON=OFF > "$out/configure.log" 2>&1
  ninja -C "$build" tilegrid_exe > "$out/build.log" 2>&1 || { grep error "$out/build.log" | head; exit 1; }
  TILEGRID_CACHE_DIR=/tmp/tg-phase-cache "$build/tilegrid" run "$@" --iters 5 > "$out/run.txt" 2>&1
  python3 - "$out/run.txt" <<'PY'
import sys
rows = [tuple(map(int, l.split()[1:])) for l in open(sys.argv[1]) if l.startswith("PHASE")]
launches, seen = [[]], set()
for r in rows:  # launches print in turn; a CTA seen again starts the next
    if r[0] in seen:
        launches.append([])
        seen = set()
    seen.add(r[0])
    launches[-1].append(r)
launch = launches[-2] if len(launches) > 1 else launches[-1]
start = min(r[2] for r in launch)
def spread(values):
    v = sorted(x - start for x in values)
    return f"{v[0] / 1e3:7.2f} {v[len(v) // 2] / 1e3:7.2f} {v[-1] / 1e3:7.2f}  ({len(v)} CTAs)" if v else "-"
print(f"{len(launch)} CTAs; us after the first entry: earliest, median, latest")
print("entry         ", spread([r[2] for r in launch]))
print("set up        ", spread([r[6] for r in launch]))
print("registers     ", spread([r[8] for r in launch if r[7]]))
print("split         ", spread([r[9] for r in launch if r[7]]))
print("first tile    ", spread([r[10] for r in launch if r[7]]))
print("first issued  ", spread([r[7] for r in launch if r[7]]))
print("first landed  ", spread([r[3] for r in launch if r[3]]))
print("loop end      ", spread([r[4] for r in launch if r[4]]))
print("handed over   ", spread([r[5] for r in launch if r[5] and not r[1]]))
print("finisher ready", spread([r[5] for r in launch if r[1]]))
PY
}

mode=${1:?$usage}
shift
case $mode in
  ncu) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; ncu_profile "$@" ;;
  phases) [ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }; phase_times "$@" ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
