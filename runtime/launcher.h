#pragma once
// Loading a compiled kernel and launching it through cuLaunchKernelEx.
#include <cuda.h>

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <memory>
#include <vector>

#include "codegen/kernel_source.h"
#include "runtime/compiler.h"

namespace tilegrid::runtime {

// Kernel parameters by value, in order. Tensor maps are copied into 64-byte aligned storage, which
// `const __grid_constant__ CUtensorMap` parameters need.
class KernelArgs {
 public:
  template <typename T>
  KernelArgs& add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are copied bytewise");
    auto storage = std::shared_ptr<std::byte>(static_cast<std::byte*>(::operator new(sizeof(T), std::align_val_t(64))),
                                              [](std::byte* p) { ::operator delete(p, std::align_val_t(64)); });
    std::memcpy(storage.get(), &value, sizeof(T));
    pointers_.push_back(storage.get());
    storage_.push_back(std::move(storage));
    return *this;
  }
  void** data() { return pointers_.data(); }
  size_t size() const { return pointers_.size(); }

 private:
  std::vector<std::shared_ptr<std::byte>> storage_;
  std::vector<void*> pointers_;
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

  // Sets the dynamic shared-memory limit when the launch asks for more than 48 KiB, then launches
  // with the grid, block, dynamic smem and cluster of residentLaunch(config). Writes the launch
  // dump if enabled.
  void launch(const codegen::LaunchConfig& config, KernelArgs& args, CUstream stream = nullptr) const;

 private:
  std::string name_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  mutable uint32_t smem_limit_set_ = 0;
  mutable uint32_t resident_clusters_ = 0;
};

}  // namespace tilegrid::runtime
