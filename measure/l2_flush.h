#pragma once
// Evicting the L2 between timed launches, so that each reads its operands from DRAM as it would
// after other work. Two ways, which leave the L2 in different states:
//   write: zeroes a buffer twice the L2's size (what nvbench and Triton's do_bench do). The L2 is
//          left full of written lines; the timed kernel's reads evict them, and DRAM writes them
//          back while it reads, unless its reads are evict-first (docs/design.md, *Operands read
//          once*).
//   read:  reads the buffer with the loads' normal L2 priority. The L2 is left full of clean lines.
#include <cuda.h>

#include <cstdint>
#include <string>

#include "tilegrid/runtime/buffer.h"

namespace tilegrid::runtime {

enum class L2Flush { Write, Read };
const char* toString(L2Flush how);
// "write" or "read"; anything else is the user's error, named with what is allowed.
L2Flush parseL2Flush(const std::string& text);

class L2Flusher {
 public:
  explicit L2Flusher(int64_t l2_bytes, L2Flush how = L2Flush::Write);
  void flush(CUstream stream = nullptr);
  L2Flush how() const { return how_; }

 private:
  DeviceBuffer scratch_;
  L2Flush how_;
};

}  // namespace tilegrid::runtime
