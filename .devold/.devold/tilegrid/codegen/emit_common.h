#pragma once
// Pieces both GEMM emitters share: kernel names, the common configuration, smem offsets for layout
// checks, and the affine forms of global-memory offsets (so kernels can step pointers by constants).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilegrid/codegen/config_block.h"
#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/ir/tensor_domain.h"
#include "tilegrid/ir/val.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::codegen {

// The kernel's configuration as a name, e.g. tilegrid_sm90_bf16_tn_128x256x64_s4_smerge8_c2x1, with
// the problem's sizes only where they are compiled in (tilegrid_sm80_..._4096x4096x4096).
std::string kernelName(const scheduler::MatmulSchedule& schedule);
// The kernel with what its launch passes beyond the problem: the kernel's name with the traversal's
// group where the kernel reads it at launch (..._smerge8n_... for ..._smerge8_...) and,
// on sm_90, _directc where its threads store C rather than TMA, so that reports and datasets tell
// apart launches of one kernel that run differently.
std::string launchName(const scheduler::MatmulSchedule& schedule);

// Whether the sm_90 epilogue stores C by TMA: C's rows and batch entries start and end on 16 bytes.
bool tmaStoresC(const scheduler::MatmulSchedule& schedule);

// The configuration every GEMM kernel has: its element types, threads, tile and stages, and the
// sizes of its problem where they are compiled in (FIXED_*, read only where SHAPE_AT_LAUNCH is false;
// 0 otherwise, so that the source does not depend on the problem).
ConfigBlock commonConfig(const scheduler::MatmulSchedule& s);

// A compiled-in size: `value` where the shape is compiled in, else 0 (the kernel reads `prob`).
int64_t fixedSize(const scheduler::MatmulSchedule& s, int64_t value);

// What the kernel computes, for its source's first line.
std::string kernelSummary(const scheduler::MatmulSchedule& s);

// A shared-memory tile's element offset of (row, col, stage), from the Indexer's expression, for the
// emitters to check layout properties on element by element.
class SmemOffsets {
 public:
  explicit SmemOffsets(const ir::TensorDomain& tile);
  int64_t operator()(int64_t row, int64_t col, int64_t stage = 0) const;
  // The same offset as index math over loop variables "x" (row), "y" (col) and "s" (stage).
  const ir::Val& expression() const { return expression_; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t stages() const { return stages_; }

 private:
  ir::Val expression_;
  ir::CompiledVal offset_;
  int64_t rows_, cols_, stages_;
};

// The constant step of a global matrix's element offset along logical axis `axis` (0 or 1): the
// offset is base + step * index there, by IR algebra (ir::affineIn) on the Indexer's expression.
// Nothing where it is not affine in that index or the step is not a constant (a leading dimension
// read at launch, say).
std::optional<int64_t> constantStep(const ir::TensorDomain& gmem, int axis);

// A global matrix's element offset as a linear form, tg_gmem_x(mn, k) == mn * mn_step + k * k_step,
// by IR algebra (ir::affineIn) on the Indexer's expression: exact for every (mn, k) and every problem
// the kernel takes. The steps are constants or expressions of problem parameters (a leading
// dimension read at launch). Nothing where the offset is not of that form.
struct GmemSteps {
  ir::Val mn_step, k_step;
};
std::optional<GmemSteps> gmemSteps(const ir::TensorDomain& gmem);

// The copy the runtime makes before every launch of a schedule that pads operand 'a' or 'b' of its
// kernel problem: the operand's rows at its leading dimension, into rows of gmem's padded pitch.
std::optional<PaddedCopy> paddedCopy(const scheduler::MatmulSchedule& s, char operand);

// Words of the flag area that starts every stream-K workspace on `device`: two flags for each of the
// most slots a launch there can have (a consumer warpgroup of a CTA on every SM), in whole 256-byte
// blocks. The same for every kernel of the device, so that kernels sharing a workspace never
// overwrite another's flags with anything but the zeros it leaves behind.
int64_t streamKFlagWords(const scheduler::DeviceSpec& device);

// Bytes at the start of every workspace on `device` that kernels find zeroed and leave zeroed: the
// flag area, then the area where in-step pieces accumulate their sums (scheduler::kAccumulationBytes).
// Other scratch (partial sums stored whole, padded operand copies) comes after it.
uint64_t workspaceZeroBytes(const scheduler::DeviceSpec& device);

// The stream-K workspace argument on `device`: the zeroed area, then an fp32 partial sum of
// `sum_elems` per slot. A slot is what hands one sum over: a consumer warpgroup. The kernel indexes
// it the same way (templates/sm90_gemm.cu).
KernelArg streamKWorkspace(const scheduler::DeviceSpec& device, int64_t slots, int64_t sum_elems);

}  // namespace tilegrid::codegen
