#pragma once
// Loading a compiled kernel and launching it through cuLaunchKernelEx.
#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/runtime/compiler.h"

namespace tilegrid::runtime {

// Kernel parameters by value, in order, held inside the object: building a launch allocates nothing.
// Each is copied to a boundary of its own alignment (a CUtensorMap's is 128 bytes). Not copyable:
// data() points into the object itself.
class KernelArgs {
 public:
  static constexpr size_t kMaxArgs = 16, kMaxBytes = 2048, kAlign = 128;

  KernelArgs() = default;
  KernelArgs(const KernelArgs&) = delete;
  KernelArgs& operator=(const KernelArgs&) = delete;

  template <typename T>
  KernelArgs& add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are copied bytewise");
    static_assert(alignof(T) <= kAlign, "arguments are aligned to at most kAlign bytes");
    const size_t at = (used_ + alignof(T) - 1) / alignof(T) * alignof(T);
    if (count_ == kMaxArgs || at + sizeof(T) > kMaxBytes) tooMany(sizeof(T));
    std::memcpy(storage_ + at, &value, sizeof(T));
    pointers_[count_++] = storage_ + at;
    used_ = at + sizeof(T);
    return *this;
  }
  void** data() { return pointers_; }
  size_t size() const { return count_; }

 private:
  [[noreturn]] void tooMany(size_t bytes) const;

  alignas(kAlign) std::byte storage_[kMaxBytes];
  void* pointers_[kMaxArgs] = {};
  size_t count_ = 0, used_ = 0;
};

// A CUBIN loaded into the current context, with its kernel function. Unloaded on destruction.
class LoadedKernel {
 public:
  explicit LoadedKernel(const CompiledKernel& kernel);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;
  LoadedKernel(LoadedKernel&& other) noexcept;
  LoadedKernel& operator=(LoadedKernel&&) = delete;

  CUfunction function() const { return function_; }
  const std::string& name() const { return name_; }

  // The launch a persistent `config` makes: its grid cut to the clusters the device holds at once
  // (clusters are placed within GPCs, so fewer CTAs than SMs may fit; a persistent CTA that waited
  // for a slot would run its whole share after the others). Other launches are left as they are.
  codegen::LaunchConfig residentLaunch(const codegen::LaunchConfig& config) const;

  // Also raises the kernel's dynamic shared-memory limit to what `config` asks for, where that
  // passes 48 KiB. Thread-safe.

  // Launches residentLaunch(config).
  void launch(const codegen::LaunchConfig& config, KernelArgs& args, CUstream stream = nullptr) const;
  // Launches `resident`, a launch residentLaunch returned, as it is: the hot path of a prepared
  // GEMM. Writes the launch dump if enabled.
  void launchResident(const codegen::LaunchConfig& resident, KernelArgs& args, CUstream stream) const;

 private:
  std::string name_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  // Set once by residentLaunch (racing threads set the same values).
  mutable std::atomic<uint32_t> smem_limit_set_ = 0;
  mutable std::atomic<uint32_t> resident_clusters_ = 0;
};

}  // namespace tilegrid::runtime
