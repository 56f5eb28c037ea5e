#include "cli/plan_options.h"

#include <fmt/format.h>

#include "cli/parse.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/ir/swizzle_merge.h"

namespace tilegrid::cli {

void addPlanOptions(CLI::App& cmd, PlanOptions& o) {
  cmd.add_option("--m", o.m, "Rows of A and C")->required();
  cmd.add_option("--n", o.n, "Columns of B and C")->required();
  cmd.add_option("--k", o.k, "Reduction extent")->required();
  cmd.add_option("--batch", o.batch, "Batch count")->capture_default_str();
  cmd.add_option("--dtype", o.dtype, "A and B dtype: bf16 | fp16 | e4m3 | e5m2 (8-bit: sm_90, layout TN)")
      ->capture_default_str();
  cmd.add_option("--b-dtype", o.b_dtype, "B's dtype where it differs from A's: e4m3 and e5m2 mix (default: --dtype)");
  cmd.add_option("--out-dtype", o.out_dtype, "C dtype: bf16 | fp16 | fp32 (default: --dtype, bf16 for 8-bit inputs)");
  cmd.add_option("--scale", o.scale,
                 "Scales of 8-bit inputs, fp32: none | tensor (one float for A, one for B) | row (one per row of A "
                 "and column of B): both multiply the product before the epilogue, which may also name scale_a and "
                 "scale_b itself | block128 (one per row of A and 128-deep K block, one per 128x128 block of B): "
                 "applied per K block in the main loop")
      ->capture_default_str();
  cmd.add_option("--epilogue", o.epilogue,
                 "Fused epilogue applied to each value before it is stored, e.g. \"gelu(alpha*acc + bias[n])\", "
                 "\"alpha*acc + beta*c\", \"relu(acc + bias[m]); aux = acc + bias[m]\". Names: acc, alpha, beta, c, "
                 "residual, bias[m] | bias[n], scale_a, scale_b (with --scale); + - * / max min relu gelu gelu_tanh silu "
                 "sigmoid tanh exp bf16 fp16");
  cmd.add_option("--bias-dtype", o.bias_dtype, "The epilogue's bias vector: bf16 | fp16 | fp32 (default: C's)");
  cmd.add_option("--c-in-dtype", o.c_in_dtype, "The epilogue's input matrix c: bf16 | fp16 | fp32 (default: C's)");
  cmd.add_option("--residual-dtype", o.residual_dtype, "The epilogue's residual matrix: bf16 | fp16 | fp32 (default: C's)");
  cmd.add_option("--aux-dtype", o.aux_dtype, "The epilogue's auxiliary output: bf16 | fp16 | fp32 (default: C's)");
  cmd.add_option("--lda", o.lda, "Elements between stored rows of A (0: packed, its contiguous extent)")
      ->capture_default_str();
  cmd.add_option("--ldb", o.ldb, "Elements between stored rows of B (0: packed)")->capture_default_str();
  cmd.add_option("--ldc", o.ldc, "Elements between rows of C (0: packed, N)")->capture_default_str();
  cmd.add_option("--stride-a", o.stride_a, "Elements between batch entries of A (0: packed)")->capture_default_str();
  cmd.add_option("--stride-b", o.stride_b, "Elements between batch entries of B (0: packed)")->capture_default_str();
  cmd.add_option("--stride-c", o.stride_c, "Elements between batch entries of C (0: packed)")->capture_default_str();
  cmd.add_flag("--specialize-shape", o.specialize_shape,
               "Compile M, N, K, batch, leading dimensions and strides into the kernel. By default kernels read them "
               "at launch, so one compiled kernel serves every problem of its configuration");
  cmd.add_flag("--deterministic", o.deterministic,
               "Add stream-K's partial sums in an order the plan fixes, so every launch gives the same bits. By "
               "default pieces that share a small tile add their sums at L2 in the order they arrive (faster; the "
               "last bits of C may vary)");
  cmd.add_option("--layout", o.layout, "TN | NT | NN | TT (A then B; T = K-major A, N = K-major B)")
      ->capture_default_str();
  cmd.add_option("--arch", o.arch,
                 "sm_80 | sm_90: the kernel family and device preset. Default: the GPU's own (run), else sm_90, "
                 "whose family the scheduler picks but for TN problems of a few K tiles (sm_80). sm_80 kernels "
                 "also run on sm_90 devices");
  cmd.add_option("--factor", o.factor, "Grid swizzle factor or list (default: the L2 model's choice)");
  cmd.add_option("--method", o.method, "Grid traversal: none | split-merge | swizzle-merge");
  cmd.add_option("--group", o.group, "Grouped grid dimension: m | n");
  cmd.add_option("--cta-tile", o.cta_tile, "CTA tile M,N,K (or MxNxK, as plan prints it)");
  cmd.add_option("--warp-tile", o.warp_tile, "Warp tile M,N or MxN (sm_80) or consumer warpgroup tile (sm_90)");
  cmd.add_option("--stages", o.stages, "Pipeline stages");
  cmd.add_option("--persistent", o.persistent,
                 "on (default): as many CTAs as fit on the SMs at once, each walking tiles; off: one CTA per tile");
  cmd.add_option("--stream-k", o.stream_k,
                 "sm_90, persistent: on shares the last wave's tiles (or a problem of less than a wave) among all CTAs "
                 "by K ranges, where a share and its hand-over take less than a whole tile; off. Default: on; where M "
                 "or N is under 128, only where the tiles fill at most half the SMs (each is then cut into K pieces)");
  cmd.add_option("--width-at-launch", o.width_at_launch,
                 "sm_90: on compiles a kernel holding the run of tile widths that fit as many stages as the tile's, "
                 "the launch picking the width; off compiles the width in. Default: on for the one-wave fit's tiles "
                 "alone over a K-major B");
  cmd.add_option("--fixed-choices", o.fixed_choices,
                 "sm_90: on compiles the traversal's factor, the cluster size and C's orientation and stores into "
                 "the kernel (the shape is still read at launch); off lets one kernel read them at launch. Default: "
                 "on where M and N are at most 2048 or one of them at most 64");
  cmd.add_option("--dot", o.dot,
                 "on runs the problem as the dot kernel (at most 8x8 outputs, 16-bit inputs: CUDA cores, K cut over "
                 "the SMs, sums added at L2), off as a tiled kernel; by default the dot kernel wherever it can run the "
                 "problem and no other option describes a tiled kernel");
  cmd.add_option("--pingpong", o.pingpong,
                 "sm_90: on gives each of two consumer warpgroups whole tiles in turns (a warpgroup's share of the "
                 "chosen tile, or --cta-tile), so that one stores its tile while the other multiplies; whole units, no "
                 "stream-K. off (default): the consumers share each tile");
  cmd.add_option("--swap-ab", o.swap_ab,
                 "sm_90: on computes C^T = B^T A^T (wgmma's M along N, each tile stored transposed); off computes C = A B. "
                 "Default: on where N is 64 or less under a larger M, else the orientation whose tile ranking scores "
                 "1% higher, else off");
  cmd.add_option("--pad-operands", o.pad_operands,
                 "on reads A and B, where their rows or pointers are not 16-byte aligned, through copies with "
                 "16-byte aligned rows made before each launch (timed with it); off reads them in narrower pieces "
                 "(sm_80 only: sm_90's TMA needs the copies). Default: sm_90 on; sm_80 where the copy pays (plan "
                 "says \"padded\")");
  cmd.add_option("--mma-order", o.mma_order,
                 "sm_80: the order of a warp's mma.sync in a k16 step: rows (row block by row block) or columns "
                 "(column by column, down and back up). Default: columns where B is K-major (TN, NN) on an sm_90 "
                 "device, else rows");
  cmd.add_flag("--tuned,!--no-tuned", o.tuned,
               "Use the grid traversal `tilegrid sweep --apply` stored for this problem (default on)");
  cmd.add_option("--cluster", o.cluster, "sm_90: CTAs per cluster along M, sharing the B tile by TMA multicast (1, 2 or 4). Default: the "
                 "ranked tile's (plan shows the ranking); else 2 over two tile rows or more, but 1 where 128x256 tiles fit "
                 "the SMs at once or, in a problem under half a wave, their rows are odd; 2 for a --cta-tile with two tile rows or more");
}

PlanRequest parsePlanOptions(const PlanOptions& o, const std::optional<scheduler::DeviceSpec>& device) {
  PlanRequest r;
  r.problem.m = parseInt(o.m, "--m");
  r.problem.n = parseInt(o.n, "--n");
  r.problem.k = parseInt(o.k, "--k");
  r.problem.batch = parseInt(o.batch, "--batch");
  r.problem.a_dtype = r.problem.b_dtype = forOption("--dtype", [&] { return scheduler::parseInputDType(o.dtype); });
  if (!o.b_dtype.empty()) r.problem.b_dtype = forOption("--b-dtype", [&] { return scheduler::parseInputDType(o.b_dtype); });
  const scheduler::DType default_out = scheduler::isFp8(r.problem.a_dtype) ? scheduler::DType::BF16 : r.problem.a_dtype;
  r.problem.out_dtype = o.out_dtype.empty() ? default_out
                                            : forOption("--out-dtype", [&] { return scheduler::parseOutputDType(o.out_dtype); });
  r.problem.scale = forOption("--scale", [&] { return scheduler::parseScaleMode(o.scale); });
  r.problem.lda = parseInt(o.lda, "--lda");
  r.problem.ldb = parseInt(o.ldb, "--ldb");
  r.problem.ldc = parseInt(o.ldc, "--ldc");
  r.problem.stride_a = parseInt(o.stride_a, "--stride-a");
  r.problem.stride_b = parseInt(o.stride_b, "--stride-b");
  r.problem.stride_c = parseInt(o.stride_c, "--stride-c");
  r.problem.layout = forOption("--layout", [&] { return scheduler::parseLayout(o.layout); });
  if (!o.epilogue.empty()) r.problem.epilogue = forOption("--epilogue", [&] { return ir::Epilogue::parse(o.epilogue); });
  const std::pair<const char*, std::pair<const std::string*, std::optional<scheduler::DType>*>> epilogue_types[] = {
      {"--bias-dtype", {&o.bias_dtype, &r.problem.bias_dtype}},
      {"--c-in-dtype", {&o.c_in_dtype, &r.problem.c_in_dtype}},
      {"--residual-dtype", {&o.residual_dtype, &r.problem.residual_dtype}},
      {"--aux-dtype", {&o.aux_dtype, &r.problem.aux_dtype}}};
  for (const auto& [option, field] : epilogue_types) {
    if (!field.first->empty()) *field.second = forOption(option, [&] { return scheduler::parseDType(*field.first); });
  }
  r.problem.validate();
  if (device) {
    r.device = *device;
    if (!o.arch.empty()) r.overrides.arch = forOption("--arch", [&] { return scheduler::parseArch(o.arch); });
  } else {
    r.device = forOption("--arch", [&] { return scheduler::DeviceSpec::preset(o.arch.empty() ? "sm_90" : o.arch); });
  }
  if (!o.factor.empty()) {
    r.overrides.factors = parseIntList(o.factor, "--factor");
    forOption("--factor", [&] { ir::validateSwizzleFactors(*r.overrides.factors); });
  }
  if (!o.method.empty()) r.overrides.method = forOption("--method", [&] { return scheduler::parseGridMethod(o.method); });
  if (!o.group.empty()) r.overrides.group = forOption("--group", [&] { return scheduler::parseGridGroup(o.group); });
  if (!o.cta_tile.empty()) {
    const auto t = parseShape(o.cta_tile, "--cta-tile", "M,N,K");
    r.overrides.cta_tile = scheduler::TileShape{t[0], t[1], t[2]};
  }
  if (!o.warp_tile.empty()) {
    const auto t = parseShape(o.warp_tile, "--warp-tile", "M,N");
    r.overrides.warp_tile = scheduler::TileShape{t[0], t[1], 0};
  }
  if (!o.stages.empty()) r.overrides.stages = parseInt(o.stages, "--stages");
  if (!o.cluster.empty()) r.overrides.cluster_m = parseInt(o.cluster, "--cluster");
  if (!o.persistent.empty()) r.overrides.persistent = parseOnOff("--persistent", o.persistent);
  if (!o.stream_k.empty()) r.overrides.stream_k = parseOnOff("--stream-k", o.stream_k);
  if (!o.swap_ab.empty()) r.overrides.swap_ab = parseOnOff("--swap-ab", o.swap_ab);
  if (!o.pingpong.empty()) r.overrides.pingpong = parseOnOff("--pingpong", o.pingpong);
  if (!o.dot.empty()) r.overrides.dot = parseOnOff("--dot", o.dot);
  if (!o.width_at_launch.empty()) r.overrides.width_at_launch = parseOnOff("--width-at-launch", o.width_at_launch);
  if (!o.fixed_choices.empty()) r.overrides.launch_choices_compiled = parseOnOff("--fixed-choices", o.fixed_choices);
  if (o.specialize_shape) r.overrides.specialize_shape = true;
  if (o.deterministic) r.overrides.deterministic = true;
  if (!o.pad_operands.empty()) r.overrides.pad = parseOnOff("--pad-operands", o.pad_operands);
  if (!o.mma_order.empty()) {
    r.overrides.mma_order = forOption("--mma-order", [&] { return scheduler::parseMmaOrder(o.mma_order); });
  }
  if (o.tuned && o.factor.empty() && o.method.empty() && o.group.empty()) {
    if (const auto store = runtime::TuningStore::openDefault()) {
      const scheduler::Arch arch = r.overrides.arch.value_or(r.device.arch());
      if (auto tuned = store->lookup(r.problem, r.device, arch)) {
        r.overrides.method = tuned->traversal.method;
        r.overrides.factors = tuned->traversal.factors;
        r.overrides.group = tuned->traversal.group;
        r.tuned = tuned;
        r.tuned_from = store->file().string();
      }
    }
  }
  return r;
}

std::string tunedNote(const PlanRequest& request) {
  if (!request.tuned) return "";
  return fmt::format("grid: tuned by tilegrid sweep --apply ({} measured {:.1f} TFLOP/s, cuBLAS {:.1f}; {}); "
                     "--no-tuned for the L2 model's choice",
                     request.tuned->traversal.toString(), request.tuned->tflops, request.tuned->cublas_tflops,
                     request.tuned_from);
}

}  // namespace tilegrid::cli
