"""What matmul derives from its tensors, without a GPU: the extension's launch is replaced by a
recorder, and tensors are plain objects with a __cuda_array_interface__ over made-up addresses, so
every layout, leading dimension, batch stride, alignment and epilogue operand can be checked."""
import ctypes

import pytest

import tilegrid
from tilegrid import _matmul

BASE = 0x7F0000000000  # a 16-byte aligned made-up device address


class Fake:
    """A GPU array seen only through __cuda_array_interface__ (strides in bytes, None: row-major)."""

    def __init__(self, shape, strides=None, typestr="<f2", offset=0):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (BASE + offset, False),
                                         "strides": strides, "version": 3}


@pytest.fixture
def launches(monkeypatch):
    calls = []

    def record(problem, a, b, c, stream, options, epilogue):
        calls.append({"problem": problem, "pointers": (a, b, c), "stream": stream, "options": options,
                      "epilogue": epilogue})

    monkeypatch.setattr(_matmul._tilegrid, "matmul", record)
    return calls


# Positions in the problem tuple (python/src/run.cpp, ProblemField).
M, N, K, BATCH, LAYOUT, A_DT, B_DT, OUT_DT, LDA, LDB, LDC, SA, SB, SC, ALIGN_A, ALIGN_B, ALIGN_C, EPILOGUE = range(18)


def test_layouts_and_leading_dimensions_follow_the_strides(launches):
    m, n, k = 96, 80, 64
    row_a, col_a = Fake((m, k)), Fake((m, k), strides=(2, 2 * m))        # K-major A (T), M-major A (N)
    col_b, row_b = Fake((k, n), strides=(2, 2 * k)), Fake((k, n))        # K-major B (N), N-major B (T)
    out = Fake((m, n))
    for a, b, layout, lda, ldb in ((row_a, col_b, "TN", k, k), (col_a, row_b, "NT", m, n), (col_a, col_b, "NN", m, k),
                                   (row_a, row_b, "TT", k, n)):
        tilegrid.matmul(a, b, out)
        p = launches[-1]["problem"]
        assert (p[M], p[N], p[K], p[BATCH]) == (m, n, k, 1)
        assert (p[LAYOUT], p[LDA], p[LDB], p[LDC]) == (layout, lda, ldb, n)
        assert (p[A_DT], p[B_DT], p[OUT_DT]) == ("fp16", "fp16", "fp16")
        assert (p[ALIGN_A], p[ALIGN_B], p[ALIGN_C]) == (8, 8, 8)
        assert launches[-1]["stream"] == 0 and launches[-1]["options"] == (None, False, False, None, True)


def test_options_reach_their_fields(launches):
    a, b, out = Fake((64, 32)), Fake((32, 48), strides=(2, 64)), Fake((64, 48))
    tilegrid.matmul(a, b, out, arch="sm_80", deterministic=True, specialize_shape=True, fixed_choices=False,
                    overlap_prior_kernel=False)
    assert launches[-1]["options"] == ("sm_80", True, True, False, False)


def test_views_keep_their_leading_dimension_and_alignment(launches):
    # Rows 1000 elements apart, starting one element (2 bytes) past a 16-byte boundary.
    a = Fake((500, 300), strides=(2000, 2), offset=2)
    b = Fake((300, 400), strides=(2, 1204), offset=8)   # K-major, columns 602 apart, 8 bytes in
    out = Fake((500, 400), strides=(2 * 420, 2), offset=6)
    tilegrid.matmul(a, b, out, out_dtype="fp16")
    p = launches[-1]["problem"]
    assert (p[LAYOUT], p[LDA], p[LDB], p[LDC]) == ("TN", 1000, 602, 420)
    assert (p[ALIGN_A], p[ALIGN_B], p[ALIGN_C]) == (1, 2, 1)
    assert launches[-1]["pointers"] == (BASE + 2, BASE + 8, BASE + 6)


def test_batches_carry_their_strides(launches):
    a = Fake((3, 64, 32), strides=(2 * 64 * 40, 2 * 40, 2))
    b = Fake((3, 32, 48))
    out = Fake((3, 64, 48))
    tilegrid.matmul(a, b, out)
    p = launches[-1]["problem"]
    assert (p[BATCH], p[LAYOUT], p[LDA], p[SA], p[SB], p[SC]) == (3, "TT", 40, 64 * 40, 32 * 48, 64 * 48)


def test_epilogue_operands_reach_their_fields(launches):
    m, n, k = 64, 72, 32
    a, b, out = Fake((m, k)), Fake((k, n), strides=(2, 2 * k)), Fake((m, n))
    bias = Fake((n,), typestr="<f4", offset=64)
    c = Fake((m, n), strides=(4 * 80, 4), typestr="<f4", offset=128)
    aux = Fake((m, n), offset=256)
    tilegrid.matmul(a, b, out, "relu(alpha * acc + beta * c + bias[n]); aux = acc", bias=bias, c=c, aux=aux,
                    alpha=0.5, beta=2.0)
    call = launches[-1]
    p, e = call["problem"], call["epilogue"]
    assert p[EPILOGUE] == "relu(alpha * acc + beta * c + bias[n]); aux = acc"
    assert p[18:22] == ("fp32", "fp32", None, "fp16")  # bias, c, residual, aux dtypes
    assert e == (0.5, 2.0, BASE + 64, 0, BASE + 128, 80, 0, None, 0, 0, BASE + 256, n, 0, None, 0, None, 0)
    assert p[22] == "none"  # no scales


def test_scales_are_told_apart_by_their_shapes():
    m, n, k = 300, 200, 1000
    f32 = dict(typestr="<f4")
    one = Fake((1,), **f32)
    assert _matmul._scales(None, one, one, True, "e4m3", m, n, k, 1, 0) == ("tensor", [BASE, 0, BASE, 0], {0})
    rows = _matmul._scales(None, Fake((m,), **f32), Fake((n,), offset=4096, **f32), True, "e4m3", m, n, k, 1, 0)
    assert rows == ("row", [BASE, 0, BASE + 4096, 0], {0})
    # 1x128: M x 8 blocks, M contiguous; 128x128: 2 x 8 blocks, rows 8 apart (already a multiple of four).
    blocks = _matmul._scales(None, Fake((m, 8), strides=(4, 4 * m), **f32), Fake((2, 8), **f32), True, "e4m3", m, n, k,
                             1, 0)
    assert blocks[0] == "block128"
    with pytest.raises(ValueError, match=r"scale_a: 1x128 block scales are 300x8 with M contiguous"):
        _matmul._scales(None, Fake((m, 8), **f32), Fake((2, 8), **f32), True, "e4m3", m, n, k, 1, 0)
    with pytest.raises(ValueError, match=r"scale_b: 128x128 block scales are 2x8"):
        _matmul._scales("block128", Fake((m, 8), strides=(4, 4 * m), **f32), Fake((2, 7), **f32), True, "e4m3", m, n,
                        k, 1, 0)
    with pytest.raises(ValueError, match="scale: 'blocks' is not a scale mode"):
        _matmul._scales("blocks", one, one, True, "e4m3", m, n, k, 1, 0)


def test_refusals_before_launch(launches):
    a, b, out = Fake((64, 32)), Fake((32, 48)), Fake((64, 48))
    with pytest.raises(TypeError, match="out: needed"):
        tilegrid.matmul(a, b)
    with pytest.raises(ValueError, match="out: expected shape 64x48"):
        tilegrid.matmul(a, b, Fake((64, 49)))
    with pytest.raises(ValueError, match="a: its address .* is not a multiple of its 2-byte elements"):
        tilegrid.matmul(Fake((64, 32), offset=1), b, out)
    with pytest.raises(ValueError, match="out: is read-only"):
        readonly = Fake((64, 48))
        readonly.__cuda_array_interface__["data"] = (BASE, True)
        tilegrid.matmul(a, b, readonly)
    with pytest.raises(TypeError, match="residual: the epilogue .* reads residual; pass it"):
        tilegrid.matmul(a, b, out, "acc * residual")
    with pytest.raises(TypeError, match="stream: expected"):
        tilegrid.matmul(a, b, out, stream=object())
    assert launches == []


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLManagedTensor(ctypes.Structure):
    """dlpack.h's DLManagedTensor (its DLTensor inline), the layout every DLPack version shares."""
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


@pytest.mark.parametrize("code, bits, name", [(10, 8, "e4m3"), (12, 8, "e5m2"), (4, 16, "bf16"), (2, 32, "fp32"),
                                              (11, 8, "float8 variant (DLPack code 11)"), (1, 8, "uint8")])
def test_dlpack_element_types_are_named(code, bits, name):
    if not tilegrid._tilegrid.have_dlpack:
        pytest.skip("built without dlpack/dlpack.h")
    shape = (ctypes.c_int64 * 2)(3, 5)
    managed = _DLManagedTensor(data=BASE, device=_DLDevice(2, 0), ndim=2, dtype=_DLDataType(code, bits, 1),
                               shape=shape, strides=None, byte_offset=0)
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    capsule_name = b"dltensor"
    info = tilegrid._tilegrid.tensor_info(new_capsule(ctypes.addressof(managed), capsule_name, None))
    assert info["dtype"] == name
    assert info["element_bytes"] == bits // 8
    assert tuple(info["shape"]) == (3, 5) and tuple(info["strides"]) == (5, 1)
