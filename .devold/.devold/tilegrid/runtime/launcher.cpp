#include "tilegrid/runtime/launcher.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include <utility>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/dump.h"

namespace tilegrid::runtime {

LoadedKernel::LoadedKernel(const CompiledKernel& kernel) : name_(kernel.kernel_name) {
  currentDevice();
  TG_CU(cuModuleLoadData, &module_, kernel.cubin.data());
  try {
    TG_CU(cuModuleGetFunction, &function_, module_, kernel.kernel_name.c_str());
  } catch (...) {
    Driver::get().p_cuModuleUnload(module_);
    throw;
  }
}

LoadedKernel::~LoadedKernel() {
  if (module_ != nullptr) Driver::get().p_cuModuleUnload(module_);
}

LoadedKernel::LoadedKernel(LoadedKernel&& other) noexcept
    : name_(std::move(other.name_)),
      module_(std::exchange(other.module_, nullptr)),
      function_(std::exchange(other.function_, nullptr)),
      smem_limit_set_(other.smem_limit_set_.load()),
      resident_clusters_(other.resident_clusters_.load()) {}

void KernelArgs::tooMany(size_t bytes) const {
  throw InternalError(fmt::format("internal error (this is a bug in tilegrid): {} kernel arguments in {} bytes leave no "
                                  "room for {} more (at most {} in {} bytes)",
                                  count_, used_, bytes, kMaxArgs, kMaxBytes));
}

namespace {

// The driver's launch description of `config`. `attrs` (value-initialized by the caller) receives its
// attributes, a cluster shape and programmatic dependent launch, and must outlive the returned config.
CUlaunchConfig describe(const codegen::LaunchConfig& config, std::array<CUlaunchAttribute, 2>& attrs, CUstream stream) {
  CUlaunchConfig launch{};
  launch.gridDimX = config.grid[0];
  launch.gridDimY = config.grid[1];
  launch.gridDimZ = config.grid[2];
  launch.blockDimX = config.block[0];
  launch.blockDimY = config.block[1];
  launch.blockDimZ = config.block[2];
  launch.sharedMemBytes = config.dynamic_smem_bytes;
  launch.hStream = stream;
  launch.attrs = attrs.data();
  launch.numAttrs = 0;
  if (config.cluster != std::array<uint32_t, 3>{1, 1, 1}) {
    CUlaunchAttribute& cluster = attrs[launch.numAttrs++];
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = config.cluster[0];
    cluster.value.clusterDim.y = config.cluster[1];
    cluster.value.clusterDim.z = config.cluster[2];
  }
  if (config.after_prior_grid) {
    CUlaunchAttribute& overlap = attrs[launch.numAttrs++];
    overlap.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    overlap.value.programmaticStreamSerializationAllowed = 1;
  }
  return launch;
}

}  // namespace

codegen::LaunchConfig LoadedKernel::residentLaunch(const codegen::LaunchConfig& config) const {
  currentDevice();
  for (int i = 0; i < 3; ++i) {
    TG_USER_CHECK(config.grid[i] >= 1 && config.block[i] >= 1 && config.cluster[i] >= 1)
        << "launch of " << name_ << ": grid, block and cluster extents must be >= 1 (" << config.toString() << ")";
    TG_USER_CHECK(config.grid[i] % config.cluster[i] == 0)
        << "launch of " << name_ << ": the grid must be a multiple of the cluster (" << config.toString() << ")";
  }
  if (config.dynamic_smem_bytes > 48 * 1024 && config.dynamic_smem_bytes > smem_limit_set_) {
    TG_CU(cuFuncSetAttribute, function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          static_cast<int>(config.dynamic_smem_bytes));
    smem_limit_set_ = config.dynamic_smem_bytes;
  }
  const uint32_t cluster_size = config.cluster[0] * config.cluster[1] * config.cluster[2];
  if (!config.persistent || cluster_size == 1) return config;
  if (resident_clusters_ == 0) {
    std::array<CUlaunchAttribute, 2> attrs{};
    CUlaunchConfig launch = describe(config, attrs, nullptr);
    int clusters = 0;
    TG_CU(cuOccupancyMaxActiveClusters, &clusters, function_, &launch);
    resident_clusters_ = static_cast<uint32_t>(std::max(clusters, 1));
  }
  codegen::LaunchConfig resident = config;
  resident.grid[0] = std::min(config.grid[0], resident_clusters_ * cluster_size);
  return resident;
}

void LoadedKernel::launch(const codegen::LaunchConfig& config, KernelArgs& args, CUstream stream) const {
  launchResident(residentLaunch(config), args, stream);
}

void LoadedKernel::launchResident(const codegen::LaunchConfig& resident, KernelArgs& args, CUstream stream) const {
  std::array<CUlaunchAttribute, 2> attrs{};
  CUlaunchConfig launch = describe(resident, attrs, stream);
  const DumpConfig& dump = DumpConfig::fromEnvironment();
  if (dump.enabled(DumpKind::Launch)) {
    dump.write(DumpKind::Launch, name_, fmt::format("{} with {} arguments\n", resident.toString(), args.size()));
  }
  TG_CU(cuLaunchKernelEx, &launch, function_, args.data(), nullptr);
}

}  // namespace tilegrid::runtime
