// DLPack capsules (`x.__dlpack__(stream=...)`) read into plain values: the data pointer, shape,
// strides in elements, element type and device. The capsule is left unconsumed, so its own
// destructor releases the producer's reference when Python drops it; the caller keeps the tensor,
// and with it the memory, alive across the launch.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"

#if TILEGRID_HAVE_DLPACK
#include <dlpack/dlpack.h>
#endif

namespace tilegrid::python {
namespace {

namespace py = pybind11;

#if TILEGRID_HAVE_DLPACK
// DLPack 1.0's codes of the 8-bit floats tilegrid reads (dlpack.h's kDLFloat8_e4m3fn, OCP's e4m3
// without infinities, which PyTorch's float8_e4m3fn exports as, and kDLFloat8_e5m2), by number:
// headers before 1.0 do not name them, and the numbers are part of DLPack's ABI.
constexpr uint8_t kDLPackFloat8E4M3FN = 10, kDLPackFloat8E5M2 = 12;
// Codes 7 to 14 are DLPack's 8-bit float variants (with infinities, fnuz, e3m4, e8m0...).
constexpr uint8_t kDLPackFirstFloat8 = 7, kDLPackLastFloat8 = 14;

// bf16, fp16, fp32, e4m3 and e5m2 by tilegrid's names; anything else by DLPack's code and bits, for the
// message.
std::string dtypeName(const DLDataType& t) {
  if (t.lanes == 1 && t.code == kDLBfloat && t.bits == 16) return "bf16";
  if (t.lanes == 1 && t.code == kDLFloat && t.bits == 16) return "fp16";
  if (t.lanes == 1 && t.code == kDLFloat && t.bits == 32) return "fp32";
  if (t.lanes == 1 && t.code == kDLPackFloat8E4M3FN && t.bits == 8) return "e4m3";
  if (t.lanes == 1 && t.code == kDLPackFloat8E5M2 && t.bits == 8) return "e5m2";
  const std::string lanes = t.lanes == 1 ? "" : "x" + std::to_string(t.lanes);
  if (t.code >= kDLPackFirstFloat8 && t.code <= kDLPackLastFloat8) {
    return "float8 variant (DLPack code " + std::to_string(t.code) + ")" + lanes;
  }
  const char* code = t.code == kDLFloat ? "float" : t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint"
                     : t.code == kDLBfloat ? "bfloat" : "type";
  return std::string(code) + std::to_string(t.bits) + lanes;
}
#endif

py::dict tensorInfo(const py::capsule& capsule) {
#if TILEGRID_HAVE_DLPACK
  if (std::string(capsule.name() ? capsule.name() : "") != "dltensor") {
    throw py::type_error("expected an unconsumed DLPack capsule named 'dltensor', got one named '" +
                         std::string(capsule.name() ? capsule.name() : "") + "'");
  }
  const auto* managed = static_cast<const DLManagedTensor*>(capsule.get_pointer());
  const DLTensor& t = managed->dl_tensor;
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  py::dict d;
  d["ptr"] = reinterpret_cast<uintptr_t>(static_cast<const char*>(t.data) + t.byte_offset);
  d["shape"] = py::tuple(py::cast(shape));
  if (t.strides) {
    d["strides"] = py::tuple(py::cast(std::vector<int64_t>(t.strides, t.strides + t.ndim)));
  } else {
    // Compact and row-major, as DLPack says a null strides array means.
    std::vector<int64_t> strides(static_cast<size_t>(t.ndim), 1);
    for (int i = t.ndim - 2; i >= 0; --i) strides[static_cast<size_t>(i)] = strides[static_cast<size_t>(i) + 1] * shape[static_cast<size_t>(i) + 1];
    d["strides"] = py::tuple(py::cast(strides));
  }
  d["dtype"] = dtypeName(t.dtype);
  d["element_bytes"] = (t.dtype.bits * t.dtype.lanes + 7) / 8;
  d["device_type"] = static_cast<int>(t.device.device_type);
  d["device_id"] = t.device.device_id;
  return d;
#else
  (void)capsule;
  throw py::type_error(
      "this build of tilegrid reads no DLPack (dlpack/dlpack.h was not found when it was built): pass tensors "
      "with __cuda_array_interface__, or rebuild with libdlpack-dev or PyTorch installed");
#endif
}

}  // namespace

void bindTensors(py::module_& m) {
  m.def("tensor_info", &tensorInfo, py::arg("capsule"), "A DLPack capsule's pointer, shape, strides, dtype, device.");
#if TILEGRID_HAVE_DLPACK
  m.attr("KDL_CUDA") = static_cast<int>(kDLCUDA);
#else
  m.attr("KDL_CUDA") = 2;
#endif
  m.attr("have_dlpack") = bool(TILEGRID_HAVE_DLPACK);
}

}  // namespace tilegrid::python
