#pragma once
// A cache of compiled kernels: in memory, and on disk when a folder is given (TILEGRID_CACHE_DIR).
//
// The key hashes the source, the NVRTC options, the arch and the NVRTC version. Concurrent requests
// for one key compile once; the others wait for that result. On disk each entry is one file with a
// checksum and the whole of what its key hashes, written to a temporary file and renamed into place,
// so readers never see half an entry.
//
// The folder is trusted: a kernel found there is loaded and run. So the cache refuses a folder that
// other users may write to (group or world writable without the sticky bit) or that another user
// (not root) owns, unless TILEGRID_CACHE_TRUSTED=1 says it is trusted anyway. An entry is read only
// where it is a regular file this user owns, at most kMaxEntryBytes long, opened without following
// links; it is used only where its checksum holds and it records exactly the key asked for. Anything
// else is a miss (said on standard error where TILEGRID_DUMP is set), and the kernel is compiled.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tilegrid/runtime/compiler.h"

namespace tilegrid::runtime {

class KernelCache {
 public:
  explicit KernelCache(std::optional<std::filesystem::path> disk_dir = std::nullopt);

  // The process-wide cache, on disk under TILEGRID_CACHE_DIR if that is set.
  static KernelCache& global();

  // The compiled kernel, from memory, disk or NVRTC (in that order). Writes the cuda/ptx/sass
  // dumps TILEGRID_DUMP asks for. Throws CompileError if the source does not compile.
  std::shared_ptr<const CompiledKernel> get(const codegen::KernelSource& source, scheduler::Arch arch,
                                            const CompileOptions& options = {});

  // Every source compiled for `arch`, on up to 16 threads; results in the order of `sources`.
  // `progress` (optional) is called after each, one call at a time. Rethrows the first failure.
  std::vector<std::shared_ptr<const CompiledKernel>> getAll(
      const std::vector<const codegen::KernelSource*>& sources, scheduler::Arch arch, const CompileOptions& options = {},
      const std::function<void(size_t done, size_t total, const std::string& kernel)>& progress = nullptr);

  struct Stats {
    int64_t memory_hits = 0;
    int64_t disk_hits = 0;
    int64_t compiles = 0;
    int64_t corrupt_entries = 0;
  };
  Stats stats() const;

  // What identifies a compile: the kernel's name and source, the target, NVRTC's version and options.
  static std::string keyMaterial(const codegen::KernelSource& source, scheduler::Arch arch,
                                 const CompileOptions& options);
  // 32 hex digits hashing keyMaterial: the entry's file name.
  static std::string key(const codegen::KernelSource& source, scheduler::Arch arch, const CompileOptions& options);
  static constexpr uint64_t kMaxEntryBytes = uint64_t{256} << 20;
  // Where the entry for `key` lives on disk (if there is a disk folder).
  std::optional<std::filesystem::path> diskPath(const std::string& key) const;

 private:
  std::shared_ptr<const CompiledKernel> load(const std::string& key, const std::string& material);
  void store(const std::string& key, const std::string& material, const CompiledKernel& kernel);
  void ignoreEntry(const std::filesystem::path& path, const std::string& why);

  std::optional<std::filesystem::path> disk_dir_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_future<std::shared_ptr<const CompiledKernel>>> entries_;
  Stats stats_;
};

// Serialisation of a compiled kernel with its key material, as stored on disk (exposed for tests).
std::string serialize(const CompiledKernel& kernel, const std::string& key_material);
// Nothing if the bytes are not a complete, checksummed entry for exactly `key_material`.
std::optional<CompiledKernel> deserialize(const std::string& bytes, const std::string& key_material);

}  // namespace tilegrid::runtime
