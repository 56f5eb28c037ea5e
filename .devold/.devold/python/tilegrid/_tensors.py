"""GPU tensors read into pointers, shapes and strides: through DLPack (PyTorch, CuPy, JAX...) or
__cuda_array_interface__ (Numba, CuPy), and the caller's current stream."""
import sys
from typing import NamedTuple, Tuple

from . import _tilegrid

# DLPack device types (dlpack.h): memory a kernel of the current device may read.
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13
_DEVICE_NAMES = {_KDL_CPU: "the CPU", _KDL_CUDA_HOST: "pinned host memory", 4: "an OpenCL device", 7: "a Vulkan device",
                 8: "a Metal device", 10: "a ROCm device", 14: "a oneAPI device"}
# __cuda_array_interface__ type strings.
_TYPESTRS = {"<f2": "fp16", "<f4": "fp32", "<V2": "bf16"}
_ELEMENT_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
_TORCH_DTYPES = {}  # torch.dtype -> tilegrid's name, filled on first use


def _torch_dtype_name(dtype):
    if not _TORCH_DTYPES:
        import torch
        _TORCH_DTYPES.update({torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"})
        # 8-bit floats, where this PyTorch has them (OCP's e4m3 without infinities: "fn").
        for attr, name in (("float8_e4m3fn", "e4m3"), ("float8_e5m2", "e5m2")):
            if hasattr(torch, attr):
                _TORCH_DTYPES[getattr(torch, attr)] = name
    return _TORCH_DTYPES.get(dtype) or str(dtype).replace("torch.", "")


class Tensor(NamedTuple):
    name: str
    ptr: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # in elements
    dtype: str  # "bf16", "fp16", "fp32", "e4m3", "e5m2", or another type's name (refused by the caller)
    element_bytes: int
    device: int


def is_torch(x):
    return type(x).__module__.startswith("torch") and "torch" in sys.modules


def is_cupy(x):
    return type(x).__module__.startswith("cupy") and "cupy" in sys.modules


def current_stream(x, stream):
    """The stream to run on, as an integer handle (0: the legacy default stream): `stream` if given
    (an integer, a torch.cuda.Stream or a cupy Stream), else the current stream of x's framework."""
    if stream is not None:
        if isinstance(stream, bool):
            raise TypeError(f"stream: expected a stream or an integer handle, got {stream!r}")
        if isinstance(stream, int):
            return stream
        for attribute in ("cuda_stream", "ptr", "handle"):
            handle = getattr(stream, attribute, None)
            if isinstance(handle, int):
                return handle
        raise TypeError(f"stream: expected a torch.cuda.Stream, a cupy Stream or an integer handle, got "
                        f"{type(stream).__name__}")
    if is_torch(x):
        if not x.is_cuda:
            return 0
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # the handle, without a Stream object
        return raw(x.get_device()) if raw else torch.cuda.current_stream(x.device).cuda_stream
    if is_cupy(x):
        import cupy
        return cupy.cuda.get_current_stream().ptr
    return 0


def read(x, name, stream):
    """x as a Tensor: ValueError / TypeError naming `name` for what tilegrid cannot read."""
    if x is None:
        raise TypeError(f"{name}: expected a GPU tensor, got None")
    if is_torch(x):
        # PyTorch's own accessors: what its DLPack export reports, without the export's stream
        # synchronization, which costs tens of microseconds a tensor.
        if not x.is_cuda:
            raise ValueError(f"{name}: is on {x.device}; tilegrid multiplies tensors in GPU memory (move it with .cuda())")
        dtype = _torch_dtype_name(x.dtype)
        return Tensor(name, x.data_ptr(), x.shape, x.stride(), dtype, x.element_size(), x.get_device())
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        device_type, device_id = x.__dlpack_device__()
        device_type = int(device_type)
        if device_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            where = _DEVICE_NAMES.get(device_type, f"DLPack device type {device_type}")
            raise ValueError(f"{name}: is on {where}; tilegrid multiplies tensors in GPU memory (move it with .cuda())")
        if _tilegrid.have_dlpack:
            # DLPack streams: 1 is the legacy default stream, 0 is not allowed.
            info = _tilegrid.tensor_info(x.__dlpack__(stream=stream if stream != 0 else 1))
            return Tensor(name, info["ptr"], tuple(info["shape"]), tuple(info["strides"]), info["dtype"],
                          info["element_bytes"], int(device_id))
    interface = getattr(x, "__cuda_array_interface__", None)
    if interface is not None:
        typestr = interface["typestr"]
        dtype = _TYPESTRS.get(typestr, typestr)
        element_bytes = _ELEMENT_BYTES.get(dtype, max(1, int(typestr[2:])) if typestr[2:].isdigit() else 1)
        shape = tuple(int(s) for s in interface["shape"])
        if interface.get("strides") is None:
            strides, step = [], 1
            for extent in reversed(shape):
                strides.insert(0, step)
                step *= extent
        else:
            byte_strides = interface["strides"]
            if any(s % element_bytes for s in byte_strides):
                raise ValueError(f"{name}: strides {tuple(byte_strides)} bytes are not whole {element_bytes}-byte elements")
            strides = [s // element_bytes for s in byte_strides]
        ptr = int(interface["data"][0])
        if interface["data"][1]:
            if name in ("out", "aux"):
                raise ValueError(f"{name}: is read-only (its __cuda_array_interface__ says so)")
        return Tensor(name, ptr, shape, tuple(strides), dtype, element_bytes, _device_of_pointer(x))
    if hasattr(x, "__dlpack__"):
        raise TypeError(f"{name}: this tilegrid was built without DLPack support and {type(x).__name__} has no "
                        f"__cuda_array_interface__")
    raise TypeError(f"{name}: expected a GPU tensor supporting DLPack or __cuda_array_interface__ (PyTorch, CuPy, "
                    f"Numba), got {type(x).__name__}")


def _device_of_pointer(x):
    device = getattr(x, "device", None)
    index = getattr(device, "id", getattr(device, "index", 0))
    return int(index or 0)


def empty_like_framework(x, shape, dtype, stream):
    """A new tensor of x's framework (PyTorch or CuPy) on x's device, or None for others."""
    if is_torch(x):
        import torch
        torch_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype]
        return torch.empty(shape, dtype=torch_dtype, device=x.device)
    if is_cupy(x):
        import cupy
        if dtype == "bf16":
            raise TypeError("out: CuPy has no bfloat16 arrays; pass out, or use PyTorch tensors")
        with cupy.cuda.ExternalStream(stream) if stream else cupy.cuda.Stream.null:
            return cupy.empty(shape, dtype={"fp16": cupy.float16, "fp32": cupy.float32}[dtype])
    return None
