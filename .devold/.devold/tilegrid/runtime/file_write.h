#pragma once
// Files tilegrid writes (emitted sources, sweep results, plots, dumps, the kernel cache, the tuning
// store) are written whole or not at all.
#include <filesystem>
#include <string_view>

namespace tilegrid::runtime {

// Writes `bytes` to `path`: into a new file beside it (created exclusively, with an unpredictable
// name, never through a link), every write, the sync and the close checked, then renamed over `path`.
// On any failure the temporary file is removed, `path` is left as it was, and a UserError names
// `what` (the option or setting the path came from), the file and the system's reason.
void writeFileAtomically(const std::filesystem::path& path, std::string_view bytes, std::string_view what);

// Throws the UserError writeFileAtomically would for `path` not being writable at all: a folder that
// does not exist or that this process may not create files in, or a folder at `path` itself. For
// work that takes long, before it starts.
void checkCanWriteFile(const std::filesystem::path& path, std::string_view what);

}  // namespace tilegrid::runtime
