#include "tilegrid/codegen/emit.h"

#include "tilegrid/codegen/dot_emitter.h"
#include "tilegrid/codegen/sm80_emitter.h"
#include "tilegrid/codegen/sm90_emitter.h"

namespace tilegrid::codegen {

KernelSource emit(const scheduler::MatmulSchedule& schedule) {
  if (schedule.params.dot) return emitDot(schedule);
  if (schedule.params.arch == scheduler::Arch::Sm80) return emitSm80(schedule);
  return emitSm90(schedule);
}

}  // namespace tilegrid::codegen
