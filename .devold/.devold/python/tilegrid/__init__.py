"""tilegrid from Python: explore tile-grid traversals, plans and generated CUDA, and run tilegrid's
GEMM kernels on GPU tensors.

    import torch, tilegrid
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    y = tilegrid.matmul(a, w.t(), epilogue="gelu(acc + bias[n])", bias=torch.zeros(4096, device="cuda", dtype=torch.bfloat16))
    print(tilegrid.plan(4096, 4096, 4096)["params"]["cta_tile"])

grid, plan, plan_text, emit and banks need no GPU. matmul runs on the current CUDA device's stream.
"""
from ._tilegrid import CompileError, CudaError, InternalError, NoDeviceError
from ._explore import banks, emit, grid, plan, plan_text
from ._matmul import matmul

__all__ = [
    "grid",
    "plan",
    "plan_text",
    "emit",
    "banks",
    "matmul",
    "NoDeviceError",
    "CompileError",
    "CudaError",
    "InternalError",
]
