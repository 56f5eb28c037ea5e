"""matmul: C = A @ B (and a fused epilogue) on GPU tensors, through the library's cached Gemms."""
import math

from . import _tilegrid
from ._tensors import current_stream, empty_like_framework, read

_INPUT_DTYPES = ("bf16", "fp16", "e4m3", "e5m2")
_FP8_DTYPES = ("e4m3", "e5m2")
_SCALE_MODES = ("tensor", "row", "block128")
# Block scales: K elements a block, and the row stride of B's (K blocks padded to four).
_SCALE_BLOCK = 128
_OUTPUT_DTYPES = ("bf16", "fp16", "fp32")
# The most an operand can promise: 16-byte alignment (what TMA and vector loads want).
_MOST_ALIGN_BYTES = 16
# Positions in the problem and epilogue tuples (python/src/run.cpp).
_BIAS_DTYPE, _C_DTYPE, _RESIDUAL_DTYPE, _AUX_DTYPE = 18, 19, 20, 21
_BIAS, _C, _RESIDUAL, _AUX = 2, 4, 7, 10


def _alignment(t, *extents):
    """The largest power of two of elements (at most 16 bytes' worth) dividing t's address and each
    of `extents` (leading dimension, batch stride): what the problem may promise of it."""
    if t.ptr % t.element_bytes:
        raise ValueError(f"{t.name}: its address {t.ptr:#x} is not a multiple of its {t.element_bytes}-byte elements")
    align = _MOST_ALIGN_BYTES // t.element_bytes
    for value in (t.ptr // t.element_bytes,) + extents:
        while align > 1 and value % align:
            align //= 2
    return align


def _matrix(t, rows, cols, what):
    """The (rows x cols) matrix t (or a batch of them) as (contiguous dimension, leading dimension):
    'row' where its rows are contiguous, 'column' where its columns are. Extents of 1 take any
    stride."""
    s_rows, s_cols = t.strides[-2], t.strides[-1]
    if s_rows < 0 or s_cols < 0:
        raise ValueError(f"{t.name}: negative strides {t.strides} are not supported")
    if s_cols == 1 or cols == 1:
        return "row", (s_rows if rows > 1 else cols)
    if s_rows == 1 or rows == 1:
        return "column", (s_cols if cols > 1 else rows)
    raise ValueError(f"{t.name}: the {what} has strides {t.strides[-2:]} (elements); tilegrid reads matrices whose rows "
                     f"or columns are contiguous (stride 1): pass {t.name}.contiguous()")


def _batch_stride(t, batch, ld, rows):
    if len(t.shape) == 2 or batch == 1:
        return 0
    stride = t.strides[0]
    if stride < ld * rows:
        raise ValueError(f"{t.name}: batch stride {stride} elements makes batch entries overlap (each spans {ld} x "
                         f"{rows}); broadcast batches are not supported: pass a tensor with one entry per batch")
    return stride


def _shape_text(t):
    return "x".join(str(s) for s in t.shape)


def _output_matrix(t, batch, m, n, dtype_ok=_OUTPUT_DTYPES):
    """An M x N output or input matrix of C's shape (out, c, residual, aux): row-major rows, any
    leading dimension. Returns (ld, batch stride)."""
    want = (batch, m, n) if batch > 1 or len(t.shape) == 3 else (m, n)
    if t.shape != want:
        raise ValueError(f"{t.name}: expected shape {'x'.join(map(str, want))}, got {_shape_text(t)}")
    if t.dtype not in dtype_ok:
        raise TypeError(f"{t.name}: dtype {t.dtype} is not supported; expected one of {', '.join(dtype_ok)}")
    s_rows, s_cols = t.strides[-2], t.strides[-1]
    if s_cols != 1 and n > 1:
        raise ValueError(f"{t.name}: its rows must be contiguous (last stride 1), got strides {t.strides}: pass a "
                         f"row-major tensor")
    ld = s_rows if m > 1 else n
    if ld < n:
        raise ValueError(f"{t.name}: rows {ld} elements apart overlap rows of {n}")
    return ld, _batch_stride(t, batch, ld, m)


def matmul(a, b, out=None, epilogue=None, *, bias=None, c=None, residual=None, aux=None, alpha=1.0, beta=0.0,
           scale_a=None, scale_b=None, scale=None, out_dtype=None, stream=None, arch=None, deterministic=False,
           specialize_shape=False, fixed_choices=None, overlap_prior_kernel=True):
    """out = epilogue(a @ b) on the GPU, on the caller's current stream; returns out (and aux, where
    the epilogue writes one and aux is not given).

    a: M x K, b: K x N, or batches B x M x K and B x K x N; bf16 or fp16, with rows or columns
    contiguous (any leading dimension, any 2-byte aligned address; transposed views are read as
    they are). Or 8-bit floats (torch.float8_e4m3fn, torch.float8_e5m2, in any mix; sm_90), K-major:
    a's rows and b's columns contiguous (b = w.t() of an N x K weight). out: M x N (B x M x N),
    row-major rows, bf16, fp16 or fp32; a new tensor of a's framework (PyTorch or CuPy) when not
    given, of out_dtype (default: a's dtype, bf16 for 8-bit inputs).

    scale_a, scale_b: fp32 scales of 8-bit inputs, multiplying the product (docs/fp8.md). scale
    "tensor": one element each; "row": M and N elements (or B x M, B x N); "block128": A's
    M x ceil(K/128) with M contiguous (x.t().contiguous().t() in PyTorch) and B's ceil(N/128) x
    ceil(K/128) with rows of ceil(K/128) rounded up to four (the layouts torch._scaled_mm and
    cuBLASLt take). scale=None tells the mode from the shapes.

    epilogue: an expression over acc, alpha, beta, bias[m] / bias[n], c, residual, with + - * /,
    max, min, relu, gelu, gelu_tanh, silu, sigmoid, tanh, exp, bf16(), fp16(), and optionally
    "; aux = expr" (see docs/epilogues.md). Its operands: bias (M or N elements, or B x M / B x N),
    c and residual (of out's shape), aux (of out's shape; allocated and returned when not given),
    alpha and beta (numbers). An operand or scalar the epilogue does not use is refused.

    stream: a torch.cuda.Stream, cupy Stream or integer handle (default: the framework's current
    stream). arch, deterministic, specialize_shape, fixed_choices, overlap_prior_kernel:
    tilegrid::GemmOptions.
    The first call for a configuration compiles its kernel (seconds; cached on disk under
    TILEGRID_CACHE_DIR); later calls only launch. No autograd.
    """
    handle = current_stream(a, stream)
    ta, tb = read(a, "a", handle), read(b, "b", handle)
    for t in (ta, tb):
        if len(t.shape) not in (2, 3):
            raise ValueError(f"{t.name}: expected a matrix or a batch of matrices (2 or 3 dimensions), got shape "
                             f"{_shape_text(t)}")
        if t.dtype not in _INPUT_DTYPES:
            raise TypeError(f"{t.name}: dtype {t.dtype} is not supported; tilegrid multiplies bf16, fp16, e4m3 "
                            f"or e5m2")
    if len(ta.shape) != len(tb.shape):
        raise ValueError(f"a and b: both matrices or both batches, got shapes {_shape_text(ta)} and {_shape_text(tb)}")
    fp8 = ta.dtype in _FP8_DTYPES
    if fp8 != (tb.dtype in _FP8_DTYPES) or (not fp8 and ta.dtype != tb.dtype):
        raise TypeError(f"a and b: the same 16-bit dtype, or 8-bit floats (e4m3 and e5m2 in any mix), got {ta.dtype} "
                        f"and {tb.dtype}")
    batch = ta.shape[0] if len(ta.shape) == 3 else 1
    if len(ta.shape) == 3 and tb.shape[0] != batch:
        raise ValueError(f"a and b: the same batch count, got shapes {_shape_text(ta)} and {_shape_text(tb)}")
    m, k = ta.shape[-2:]
    if tb.shape[-2] != k:
        raise ValueError(f"a and b: a is {_shape_text(ta)} and b is {_shape_text(tb)}; a's columns must match b's rows")
    n = tb.shape[-1]
    if min(m, n, k, batch) < 1:
        raise ValueError(f"a and b: every extent must be at least 1, got M={m}, N={n}, K={k}, batch={batch}")

    # A: rows contiguous is K-major ("T"), columns contiguous M-major ("N"). B: columns contiguous is
    # K-major ("N"), rows contiguous N-major ("T").
    a_order, lda = _matrix(ta, m, k, "M x K matrix")
    b_order, ldb = _matrix(tb, k, n, "K x N matrix")
    layout = ("T" if a_order == "row" else "N") + ("N" if b_order == "column" else "T")
    stride_a = _batch_stride(ta, batch, lda, m if a_order == "row" else k)
    stride_b = _batch_stride(tb, batch, ldb, n if b_order == "column" else k)

    if epilogue is not None and not isinstance(epilogue, str):
        raise TypeError(f"epilogue: expected an expression string, got {type(epilogue).__name__}")
    info = _tilegrid.epilogue_info(epilogue) if epilogue is not None else None
    _check_unused(info, bias, c, residual, aux, alpha, beta)

    if out is None:
        dtype = out_dtype or ("bf16" if fp8 else ta.dtype)
        if dtype not in _OUTPUT_DTYPES:
            raise TypeError(f"out_dtype: {dtype!r} is not supported; expected one of {', '.join(_OUTPUT_DTYPES)}")
        out = empty_like_framework(a, (batch, m, n) if len(ta.shape) == 3 else (m, n), dtype, handle)
        if out is None:
            raise TypeError(f"out: needed for {type(a).__name__} inputs (tilegrid allocates PyTorch and CuPy outputs only)")
    tc = read(out, "out", handle)
    if out_dtype is not None and tc.dtype != out_dtype:
        raise TypeError(f"out_dtype: {out_dtype!r}, but out is {tc.dtype}")
    ldc, stride_c = _output_matrix(tc, batch, m, n)

    returned_aux = None
    if info is not None and info["aux"] and aux is None:
        aux = empty_like_framework(a, (batch, m, n) if len(ta.shape) == 3 else (m, n), tc.dtype, handle)
        if aux is None:
            raise TypeError("aux: the epilogue writes aux; pass a tensor for it")
        returned_aux = aux
    mode, scale_fields, scale_devices = _scales(scale, scale_a, scale_b, fp8, ta.dtype, m, n, k, batch, handle)
    # Field orders: python/src/run.cpp (ProblemField, EpilogueField, OptionField).
    problem = [m, n, k, batch, layout, ta.dtype, tb.dtype, tc.dtype, lda, ldb, ldc, stride_a, stride_b, stride_c,
               _alignment(ta, lda, stride_a), _alignment(tb, ldb, stride_b), _alignment(tc, ldc, stride_c),
               epilogue or "", None, None, None, None, mode]
    args = [float(alpha), float(beta), None, 0, None, 0, 0, None, 0, 0, None, 0, 0] + scale_fields
    devices = {ta.device, tb.device, tc.device} | scale_devices
    if info is not None:
        if info["bias"] is not None:
            t = read(bias, "bias", handle)
            length = m if info["bias"] == "m" else n
            shapes = ((length,), (batch, length)) if len(ta.shape) == 3 else ((length,),)
            if tuple(t.shape) not in shapes:
                raise ValueError(f"bias: bias[{info['bias']}] needs {length} elements (or {batch}x{length}, one vector "
                                 f"per batch entry), got shape {_shape_text(t)}")
            if t.dtype not in _OUTPUT_DTYPES or t.strides[-1] != 1 and length > 1:
                raise ValueError(f"bias: a contiguous vector of bf16, fp16 or fp32, got {t.dtype} with strides {t.strides}")
            problem[_BIAS_DTYPE], args[_BIAS] = t.dtype, t.ptr
            args[_BIAS + 1] = t.strides[0] if len(t.shape) == 2 else 0
            devices.add(t.device)
        for name, given, dtype_at, at in (("c", c, _C_DTYPE, _C), ("residual", residual, _RESIDUAL_DTYPE, _RESIDUAL),
                                          ("aux", aux, _AUX_DTYPE, _AUX)):
            if not info[name]:
                continue
            t = read(given, name, handle)
            problem[dtype_at] = t.dtype
            args[at] = t.ptr
            args[at + 1], args[at + 2] = _output_matrix(t, batch, m, n)
            devices.add(t.device)
    if len(devices) > 1:
        raise ValueError(f"a, b, out and the epilogue's operands must be on one GPU, got devices {sorted(devices)}")
    options = (arch, bool(deterministic), bool(specialize_shape), fixed_choices, bool(overlap_prior_kernel))
    _tilegrid.matmul(tuple(problem), ta.ptr, tb.ptr, tc.ptr, handle, options, tuple(args))
    return (out, returned_aux) if returned_aux is not None else out


def _check_unused(info, bias, c, residual, aux, alpha, beta):
    """Refuses operands and scalars the epilogue does not use: nothing given is silently ignored."""
    reads = {"bias": info is not None and info["bias"] is not None, "c": info is not None and info["c"],
             "residual": info is not None and info["residual"], "aux": info is not None and info["aux"]}
    for name, value in (("bias", bias), ("c", c), ("residual", residual), ("aux", aux)):
        if value is not None and not reads[name]:
            what = "writes no aux" if name == "aux" else f"does not read {name if name != 'bias' else 'bias[m] or bias[n]'}"
            raise ValueError(f"{name}: given, but the epilogue {what}" + ("" if info else " (there is no epilogue)"))
        if value is None and reads[name] and name != "aux":
            raise TypeError(f"{name}: the epilogue {info['text']!r} reads {name}; pass it")
    for name, value, default in (("alpha", alpha, 1.0), ("beta", beta, 0.0)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name}: expected a number, got {type(value).__name__}")
        if value != default and (info is None or not info[name]):
            raise ValueError(f"{name}: {value} given, but the epilogue does not use {name} (write it in the expression, "
                             f"e.g. '{name} * acc')")


def _scales(scale, scale_a, scale_b, fp8, dtype, m, n, k, batch, handle):
    """The scale mode, the epilogue fields (scale_a, its batch stride, scale_b, its batch stride) and
    the scales' devices, from the scale tensors' shapes and strides (docs/fp8.md gives the layouts)."""
    if scale is not None and scale not in _SCALE_MODES + ("none",):
        raise ValueError(f"scale: {scale!r} is not a scale mode; expected one of {', '.join(_SCALE_MODES)}")
    if scale_a is None and scale_b is None:
        if scale not in (None, "none"):
            raise TypeError(f"scale: {scale!r} given without scale_a and scale_b; pass both")
        return "none", [None, 0, None, 0], set()
    if scale_a is None or scale_b is None:
        raise TypeError(f"{'scale_a' if scale_a is None else 'scale_b'}: needed with "
                        f"{'scale_b' if scale_a is None else 'scale_a'}")
    if not fp8:
        raise TypeError(f"scale_a, scale_b: scales dequantize 8-bit inputs; a and b are {dtype}")
    sa, sb = read(scale_a, "scale_a", handle), read(scale_b, "scale_b", handle)
    for t in (sa, sb):
        if t.dtype != "fp32":
            raise TypeError(f"{t.name}: scales are fp32, got {t.dtype}")
    def numel(t):
        return math.prod(t.shape)

    if scale in (None, "none"):
        # One element each: tensor scales (the same as row scales where M = N = 1); vectors: row
        # scales; matrices: block scales.
        scale = ("tensor" if numel(sa) == 1 and numel(sb) == 1
                 else "row" if len(sa.shape) <= 1 + (batch > 1) and len(sa.shape) == len(sb.shape)
                 else "block128")
    if scale == "tensor":
        for t in (sa, sb):
            if numel(t) != 1:
                raise ValueError(f"{t.name}: a tensor scale is one element, got shape {_shape_text(t)}")
        return "tensor", [sa.ptr, 0, sb.ptr, 0], {sa.device, sb.device}
    if scale == "row":
        fields = []
        for t, length in ((sa, m), (sb, n)):
            shapes = ((length,), (batch, length)) if batch > 1 else ((length,), (1, length))
            if tuple(t.shape) not in shapes or (length > 1 and t.strides[-1] != 1):
                raise ValueError(f"{t.name}: row scales are a contiguous vector of {length} (or {batch}x{length}), "
                                 f"got shape {_shape_text(t)} with strides {t.strides}")
            fields += [t.ptr, t.strides[0] if len(t.shape) == 2 and batch > 1 else 0]
        return "row", fields, {sa.device, sb.device}
    k_blocks, n_blocks = -(-k // _SCALE_BLOCK), -(-n // _SCALE_BLOCK)
    padded = (k_blocks + 3) // 4 * 4
    want_a, want_b = (m, k_blocks), (n_blocks, k_blocks)
    if tuple(sa.shape[-2:]) != want_a or len(sa.shape) != 2 + (batch > 1) or (sa.strides[-2] != 1 and m > 1) \
            or (k_blocks > 1 and sa.strides[-1] != m):
        raise ValueError(f"scale_a: 1x128 block scales are {m}x{k_blocks} with M contiguous (strides (1, {m}): "
                         f"x.t().contiguous().t()), got shape {_shape_text(sa)} with strides {sa.strides}")
    if tuple(sb.shape[-2:]) != want_b or len(sb.shape) != 2 + (batch > 1) or (sb.strides[-1] != 1 and k_blocks > 1) \
            or (n_blocks > 1 and sb.strides[-2] != padded):
        raise ValueError(f"scale_b: 128x128 block scales are {n_blocks}x{k_blocks} with rows {padded} elements apart "
                         f"(K blocks padded to four), got shape {_shape_text(sb)} with strides {sb.strides}")
    return "block128", [sa.ptr, sa.strides[0] if batch > 1 else 0, sb.ptr, sb.strides[0] if batch > 1 else 0], \
        {sa.device, sb.device}
