#pragma once
// The device helper sources (codegen/device/*.cuh), embedded at build time. Generated kernels paste
// the helpers they use at their top, so the source compiles with NVRTC alone.
#include <string>
#include <vector>

namespace tilegrid::codegen {

struct DeviceHelper {
  const char* name;  // the file name without .cuh: common, mbarrier, tma, wgmma
  const char* source;
};

const std::vector<DeviceHelper>& embeddedDeviceHelpers();
// Kernel templates (codegen/templates/*.cu) in the same form, named without .cu.
const std::vector<DeviceHelper>& embeddedKernelTemplates();
// The template named `name`; throws InternalError if it is not embedded.
const char* kernelTemplate(const std::string& name);

// The named helpers' sources, concatenated in the order given (with `with_common`, "common" first
// and once). Throws UserError for an unknown name, listing the known ones.
std::string deviceHelperSource(const std::vector<std::string>& names, bool with_common = true);

}  // namespace tilegrid::codegen
