#pragma once
// A cache of compiled kernels: in memory, and on disk when a folder is given (TILEGRID_CACHE_DIR).
//
// The key hashes the source, the NVRTC options, the arch and the NVRTC version. Concurrent requests
// for one key compile once; the others wait for that result. On disk each entry is one file with a
// checksum, written to a temporary file and renamed into place, so readers never see half an entry;
// an entry that is truncated or fails its checksum is deleted and recompiled.
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

#include "runtime/compiler.h"

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

  // 32 hex digits identifying the compile.
  static std::string key(const codegen::KernelSource& source, scheduler::Arch arch, const CompileOptions& options);
  // Where the entry for `key` lives on disk (if there is a disk folder).
  std::optional<std::filesystem::path> diskPath(const std::string& key) const;

 private:
  std::shared_ptr<const CompiledKernel> load(const std::string& key);
  void store(const std::string& key, const CompiledKernel& kernel);

  std::optional<std::filesystem::path> disk_dir_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_future<std::shared_ptr<const CompiledKernel>>> entries_;
  Stats stats_;
};

// Serialisation of a compiled kernel, as stored on disk (exposed for tests).
std::string serialize(const CompiledKernel& kernel);
// Nothing if the bytes are not a complete, checksummed entry.
std::optional<CompiledKernel> deserialize(const std::string& bytes);

}  // namespace tilegrid::runtime
