#include "codegen/emit.h"

#include "codegen/sm80_emitter.h"
#include "ir/error.h"

namespace tilegrid::codegen {

KernelSource emit(const scheduler::MatmulSchedule& schedule) {
  if (schedule.params.arch == scheduler::Arch::Sm80) return emitSm80(schedule);
  TG_USER_ERROR() << "sm_90a code generation (TMA + wgmma) is not implemented yet; schedule with --arch sm_80 for "
                     "the sm_80 kernel, which also runs on sm_90 devices";
  return {};
}

}  // namespace tilegrid::codegen
