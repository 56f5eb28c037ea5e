#pragma once
// Locating the CUDA toolkit: NVRTC needs its include folder (cuda_bf16.h, cuda_fp16.h) and the
// version tells users which compiler they are running against.
#include <optional>
#include <string>

namespace tilegrid::runtime {

struct CudaToolkit {
  std::string root;         // e.g. /usr/local/cuda
  std::string include_dir;  // root + "/include"
  int version_major = 0;    // from CUDA_VERSION in cuda.h, e.g. 13
  int version_minor = 0;    // e.g. 0

  std::string versionString() const;
};

// CUDA_HOME if set, else /usr/local/cuda; nothing if neither holds a toolkit (no include/cuda.h).
std::optional<CudaToolkit> findCudaToolkit();

// The same, but a UserError that says where it looked and how to point tilegrid at a toolkit.
CudaToolkit requireCudaToolkit();

}  // namespace tilegrid::runtime
