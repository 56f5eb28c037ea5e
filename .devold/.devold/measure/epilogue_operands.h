#pragma once
// The operands of a problem's fused epilogue on the device, filled with random values, and the
// epilogue applied on the host in double precision: the reference generated epilogues are checked
// against.
#include <optional>
#include <vector>

#include <memory>

#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/runtime/launcher.h"

namespace tilegrid::runtime {

struct EpilogueBuffers {
  // Each buffer the epilogue reads or writes (packed: ld N, batch entries back to back; bias one vector
  // per batch entry), and the arguments pointing at them, with alpha and beta away from 1 and 0.
  std::optional<DeviceBuffer> bias, c, residual, aux;
  // 8-bit inputs' scales (fp32, from 0.5 to 2): one float each, a vector a batch entry, or block
  // scales (MatmulProblem::scale's layouts), each batch entry its own.
  std::optional<DeviceBuffer> scale_a, scale_b;
  EpilogueArgs args;
  EpilogueBuffers(const MatmulProblem& problem, uint64_t seed);
};

// The epilogue of `problem` applied to `acc` (dense, batch x M x N) with the operands in `buffers`;
// the auxiliary output, where the epilogue has one, goes to `aux` (dense too).
std::vector<float> applyEpilogueOnHost(const MatmulProblem& problem, const std::vector<float>& acc,
                                       const EpilogueBuffers& buffers, std::vector<float>* aux);

// Block scales (ScaleMode::Block128) applied to the decoded spans of A and B, in place: what the
// product of the dequantized inputs is the reference of.
void applyBlockScales(const MatmulProblem& problem, const EpilogueBuffers& buffers, std::vector<float>& a,
                      std::vector<float>& b);

// The auxiliary output as the kernel wrote it, dense.
std::vector<float> auxOutput(const MatmulProblem& problem, const EpilogueBuffers& buffers);

// The problem's epilogue as a kernel of its own, applied to C in place
// (codegen::emitPointwiseEpilogue): the second half of the unfused pair a fused epilogue is timed
// against.
class PointwiseEpilogue {
 public:
  explicit PointwiseEpilogue(const MatmulProblem& problem);
  void operator()(CUdeviceptr c, const EpilogueArgs& args, CUstream stream);

 private:
  MatmulProblem problem_;
  std::unique_ptr<LoadedKernel> kernel_;
  codegen::LaunchConfig launch_;
};

}  // namespace tilegrid::runtime
