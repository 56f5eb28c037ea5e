#include "measure/l2_flush.h"

#include <algorithm>

#include "measure/read_inputs.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::runtime {

const char* toString(L2Flush how) { return how == L2Flush::Write ? "write" : "read"; }

L2Flush parseL2Flush(const std::string& text) {
  if (text == "write") return L2Flush::Write;
  if (text == "read") return L2Flush::Read;
  TG_USER_ERROR() << "L2 flush '" << text << "': expected write (zero a buffer twice the L2, leaving written lines) "
                  << "or read (read it, leaving clean lines)";
  return L2Flush::Write;
}

L2Flusher::L2Flusher(int64_t l2_bytes, L2Flush how)
    : scratch_(static_cast<size_t>(2 * std::max<int64_t>(l2_bytes, 1 << 20))), how_(how) {
  // Read, the buffer holds zeros from the start: what a read flush reads is DRAM's, never garbage.
  if (how_ == L2Flush::Read) scratch_.fill(0);
}

void L2Flusher::flush(CUstream stream) {
  if (how_ == L2Flush::Write) {
    scratch_.fill(0, stream);
  } else {
    readThroughL2(scratch_.ptr(), scratch_.bytes(), stream);
  }
}

}  // namespace tilegrid::runtime
