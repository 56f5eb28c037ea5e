// Whether the dot kernel (dot_kernel.h) runs a problem instead of the tiled kernel chosen for it.
#include <fmt/format.h>

#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/heuristics.h"

namespace tilegrid::scheduler {

bool ScheduleOverrides::describesTiledKernel() const {
  return arch || cta_tile || warp_tile || stages || method || factors || group || persistent || stream_k ||
         cluster_m || mma_order || width_at_launch || launch_choices_compiled || pingpong;
}

void chooseDotKernel(const MatmulProblem& problem, const DeviceSpec& device, const ScheduleOverrides& overrides,
                     MatmulParams& p, DecisionTrace& trace) {
  p.dot.reset();
  const auto decide = [&](const std::string& choice, const std::string& rule) {
    trace.push_back({"kernel", choice, rule, {}});
  };
  if (overrides.dot == false) return decide("tiled", "override");
  if (!overrides.dot && overrides.describesTiledKernel()) {
    return decide("tiled", "the overrides describe a tiled kernel");
  }
  const MatmulProblem kernel = p.kernelProblem(problem);
  const DotParams dot = dotParamsFor(kernel);
  const std::string refusal = dotRefusal(kernel, dot, device, p.specialize_shape, p.deterministic);
  TG_USER_CHECK(refusal.empty() || !overrides.dot) << "the dot kernel cannot run " << problem.toString() << ": " << refusal;
  if (!refusal.empty()) return decide("tiled", "dotRefusal: " + refusal);
  if (const std::string loses = dotLosesBy(dot); !loses.empty() && !overrides.dot) {
    return decide("tiled", "dotLosesBy: " + loses);
  }
  if (const std::string loses = dotBlocksLoseBy(kernel, dot, device); !loses.empty() && !overrides.dot) {
    return decide("tiled", "dotBlocksLoseBy: " + loses);
  }
  p.dot = dot;
  p.pad_a = p.pad_b = false;
  // Both kernels read the operands once; the dot kernel's CTAs start reading at once, where a tiled
  // kernel first sets up barriers, tensor maps and a pipeline for a tile of mostly empty rows.
  const bool blocked = dotBlocks(kernel, dot) > 1;
  decide(dot.toString() + ", " + planDotSplit(kernel, dot, device).toString(),
         overrides.dot ? "override"
         : blocked     ? fmt::format("dotBlocksLoseBy: one wave of {} CTAs an SM, a block's long side at least {}x "
                                     "its short side, 16-byte reads",
                                     kDotCtasPerSm, kDotBlockShortShare)
                       : fmt::format("dotLosesBy: at most {} sums a thread and {} reads a K element", kDotMaxSums,
                                     kDotMaxReadsPerK));
}

}  // namespace tilegrid::scheduler
