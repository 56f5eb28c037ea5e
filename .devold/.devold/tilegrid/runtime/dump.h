#pragma once
// TILEGRID_DUMP=cuda,ptx,sass,params,ir,launch prints the named artefacts of every kernel tilegrid
// compiles or launches: to stderr, or into TILEGRID_DUMP_DIR as <kernel>.<kind> files.
#include <optional>
#include <set>
#include <string>

namespace tilegrid::runtime {

enum class DumpKind { Cuda, Ptx, Sass, Params, Ir, Launch };

const char* toString(DumpKind kind);

class DumpConfig {
 public:
  // Parses a comma list such as "cuda,ptx". Throws UserError naming the unknown entry and listing
  // the valid names.
  static DumpConfig parse(const std::string& list, std::optional<std::string> dir = std::nullopt);
  // From TILEGRID_DUMP and TILEGRID_DUMP_DIR, read once.
  static const DumpConfig& fromEnvironment();

  bool enabled(DumpKind kind) const { return kinds_.count(kind) > 0; }
  bool any() const { return !kinds_.empty(); }
  // Writes `text` for `kernel` if `kind` is enabled.
  void write(DumpKind kind, const std::string& kernel, const std::string& text) const;

 private:
  std::set<DumpKind> kinds_;
  std::optional<std::string> dir_;
};

// SASS of a CUBIN via cuobjdump (or nvdisasm) from PATH. Throws UserError saying so when neither
// tool is there.
std::string disassemble(const std::string& cubin);

}  // namespace tilegrid::runtime
