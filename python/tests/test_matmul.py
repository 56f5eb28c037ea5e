"""matmul on PyTorch tensors against torch.matmul (fp32 references), on odd shapes, every layout,
strides, misaligned views, batches, streams and fused epilogues; bad input refused by name."""
import pytest

import tilegrid

pytestmark = pytest.mark.gpu


def reference(a, b):
    return a.float() @ b.float()


def assert_close(out, ref, tolerance=1e-2):
    error = (out.float() - ref).norm() / ref.norm().clamp_min(1e-30)
    assert error < tolerance, f"relative error {error:.3g}"


def operands(torch, m, n, k, layout="TN", dtype=None, batch=None):
    """A (M x K) and B (K x N) laid out as `layout` says: A's T is rows contiguous, B's N is columns."""
    dtype = dtype or torch.bfloat16
    lead = () if batch is None else (batch,)
    g = torch.Generator(device="cuda").manual_seed(m * 131 + n * 7 + k)
    a = torch.randn(*lead, m, k, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(*lead, k, n, device="cuda", dtype=dtype, generator=g)
    if layout[0] == "N":
        a = a.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout[1] == "N":
        b = b.transpose(-1, -2).contiguous().transpose(-1, -2)
    return a, b


@pytest.mark.parametrize("layout", ["TN", "NT", "NN", "TT"])
@pytest.mark.parametrize("shape", [(1001, 515, 257), (1, 4096, 4096), (4096, 1, 512), (128, 128, 65536), (8, 24, 40)])
def test_matches_torch_matmul(torch_cuda, layout, shape):
    a, b = operands(torch_cuda, *shape, layout=layout)
    assert_close(tilegrid.matmul(a, b), reference(a, b))


def test_chained_calls_overlapping_the_kernel_before_or_not(torch_cuda):
    """Each call reads the output of the call before, on one stream: launched to overlap the kernel
    before (the default) or not, every result is that of the chain in fp32."""
    a, b = operands(torch_cuda, 16, 4096, 4096)
    w = torch_cuda.randn(4096, 4096, device="cuda", dtype=torch_cuda.bfloat16) / 64
    for overlap in (True, False):
        x = tilegrid.matmul(a, b, overlap_prior_kernel=overlap)
        y = tilegrid.matmul(x, w, overlap_prior_kernel=overlap)
        assert_close(y, reference(x, w))
        assert_close(x, reference(a, b))


def test_chained_calls_in_the_sm80_family(torch_cuda):
    """TN problems of a few K tiles run in the sm_80 family on an sm_90 device, and overlap the
    kernel before them as every kernel there does: each call reads what the call before wrote."""
    a, b = operands(torch_cuda, 256, 256, 64)
    w = (torch_cuda.randn(256, 256, device="cuda", dtype=torch_cuda.bfloat16) / 16).t()
    assert tilegrid.plan(256, 256, 64)["params"]["arch"] == "sm_80"
    assert tilegrid.plan(256, 256, 256)["params"]["arch"] == "sm_80"
    for overlap in (True, False):
        x = tilegrid.matmul(a, b, overlap_prior_kernel=overlap)
        y = tilegrid.matmul(x, w, overlap_prior_kernel=overlap)
        assert_close(y, reference(x, w))
        assert_close(x, reference(a, b))


def test_fp16_and_fp32_output(torch_cuda):
    a, b = operands(torch_cuda, 777, 333, 555, dtype=torch_cuda.float16)
    out = tilegrid.matmul(a, b, out_dtype="fp32")
    assert out.dtype == torch_cuda.float32
    assert_close(out, reference(a, b), 1e-3)
    given = torch_cuda.empty(777, 333, device="cuda", dtype=torch_cuda.float16)
    assert tilegrid.matmul(a, b, given) is given
    assert_close(given, reference(a, b))


def test_batches(torch_cuda):
    a, b = operands(torch_cuda, 96, 200, 72, layout="NT", batch=5)
    out = tilegrid.matmul(a, b)
    assert out.shape == (5, 96, 200)
    assert_close(out, reference(a, b))


def test_strided_and_misaligned_views(torch_cuda):
    big_a = torch_cuda.randn(600, 700, device="cuda", dtype=torch_cuda.bfloat16)
    big_b = torch_cuda.randn(800, 900, device="cuda", dtype=torch_cuda.bfloat16)
    a = big_a[5:505, 1:301]  # rows 700 apart, starting 2 bytes past a 16-byte boundary
    b = big_b[3:303, 7:407]
    out_big = torch_cuda.zeros(520, 420, device="cuda", dtype=torch_cuda.bfloat16)
    out = out_big[10:510, 3:403]
    tilegrid.matmul(a, b, out)
    assert_close(out, reference(a, b))
    # Nothing outside the view is written.
    mask = torch_cuda.ones_like(out_big, dtype=torch_cuda.bool)
    mask[10:510, 3:403] = False
    assert (out_big[mask] == 0).all()


def test_runs_on_the_current_stream(torch_cuda):
    a, b = operands(torch_cuda, 2048, 2048, 2048)
    side = torch_cuda.cuda.Stream()
    side.wait_stream(torch_cuda.cuda.current_stream())
    with torch_cuda.cuda.stream(side):
        out = tilegrid.matmul(a, b)
        explicit = torch_cuda.empty_like(out)
        tilegrid.matmul(a, b, explicit, stream=side)
    side.synchronize()
    assert_close(out, reference(a, b))
    assert_close(explicit, reference(a, b))


def test_fused_epilogues(torch_cuda):
    torch = torch_cuda
    a, b = operands(torch, 1000, 770, 300)
    acc = reference(a, b)
    bias = torch.randn(770, device="cuda", dtype=torch.bfloat16)
    out = tilegrid.matmul(a, b, epilogue="gelu(acc + bias[n])", bias=bias)
    assert_close(out, torch.nn.functional.gelu(acc + bias.float()))
    out, aux = tilegrid.matmul(a, b, epilogue="relu(2 * acc + bias[n]); aux = acc + bias[n]", bias=bias)
    assert_close(out, torch.relu(2 * acc + bias.float()))
    assert_close(aux, acc + bias.float())
    c = torch.randn(1000, 770, device="cuda", dtype=torch.float32)
    out = tilegrid.matmul(a, b, epilogue="alpha * acc + beta * c", c=c, alpha=0.5, beta=-2.0, out_dtype="fp32")
    assert_close(out, 0.5 * acc - 2.0 * c, 1e-4)
    residual = torch.randn(1000, 770, device="cuda", dtype=torch.bfloat16)
    row_bias = torch.randn(1000, device="cuda", dtype=torch.float32)
    out = tilegrid.matmul(a, b, epilogue="silu(acc + bias[m]) * residual", bias=row_bias, residual=residual)
    assert_close(out, torch.nn.functional.silu(acc + row_bias[:, None]) * residual.float())


def test_bad_input_is_refused_naming_the_argument(torch_cuda):
    torch = torch_cuda
    a, b = operands(torch, 64, 64, 64)
    cases = [
        (lambda: tilegrid.matmul(a.cpu(), b), ValueError, "a: is on cpu"),
        (lambda: tilegrid.matmul(a, b[:32]), ValueError, "a's columns must match b's rows"),
        (lambda: tilegrid.matmul(a.float(), b.float()), TypeError, "a: dtype fp32"),
        (lambda: tilegrid.matmul(a, b.half()), TypeError, "the same 16-bit dtype"),
        (lambda: tilegrid.matmul(a[:, ::2], b[::2]), ValueError, "a: the M x K matrix has strides"),
        (lambda: tilegrid.matmul(a, b, torch.empty(64, 64, device="cuda", dtype=torch.bfloat16).t()), ValueError,
         "out: its rows must be contiguous"),
        (lambda: tilegrid.matmul(a, b, torch.empty(64, 65, device="cuda", dtype=torch.bfloat16)), ValueError,
         "out: expected shape 64x64"),
        (lambda: tilegrid.matmul(a, b, bias=torch.zeros(64, device="cuda")), ValueError, "bias: given, but"),
        (lambda: tilegrid.matmul(a, b, epilogue="acc + bias[n]"), TypeError, "bias"),
        (lambda: tilegrid.matmul(a, b, epilogue="acc + bias[n]", bias=torch.zeros(65, device="cuda")), ValueError,
         "bias: bias[n] needs 64 elements"),
        (lambda: tilegrid.matmul(a, b, alpha=2.0), ValueError, "alpha"),
        (lambda: tilegrid.matmul(a, b, epilogue="acc +"), ValueError, "column"),
        (lambda: tilegrid.matmul(a[None].expand(3, 64, 64), b[None].expand(3, 64, 64)), ValueError, "overlap"),
        (lambda: tilegrid.matmul(a, b, stream="default"), TypeError, "stream"),
    ]
    for call, error, words in cases:
        with pytest.raises(error) as caught:
            call()
        assert words in str(caught.value), str(caught.value)


def test_gradients_are_not_needed(torch_cuda):
    a, b = operands(torch_cuda, 128, 128, 128)
    a.requires_grad_(True)
    assert_close(tilegrid.matmul(a, b), reference(a.detach(), b))


class ArrayInterfaceOnly:
    """A tensor seen only through __cuda_array_interface__, as Numba arrays are."""

    def __init__(self, tensor):
        self.__cuda_array_interface__ = tensor.__cuda_array_interface__


def test_dlpack_and_cuda_array_interface_inputs(torch_cuda, dlpack_only):
    DLPackOnly = dlpack_only
    torch = torch_cuda
    if not tilegrid._tilegrid.have_dlpack:
        pytest.skip("built without dlpack/dlpack.h")
    a, b = operands(torch, 300, 200, 100, layout="NT")
    out = torch.empty(300, 200, device="cuda", dtype=torch.bfloat16)
    assert tilegrid.matmul(DLPackOnly(a), DLPackOnly(b), DLPackOnly(out)).tensor is out
    torch.cuda.synchronize()
    assert_close(out, reference(a, b))
    a16, b16 = a.half(), b.half()
    out16 = torch.empty(300, 200, device="cuda", dtype=torch.float16)
    tilegrid.matmul(ArrayInterfaceOnly(a16), ArrayInterfaceOnly(b16), ArrayInterfaceOnly(out16))
    torch.cuda.synchronize()
    assert_close(out16, reference(a16, b16))
    with pytest.raises(TypeError, match="out: needed"):
        tilegrid.matmul(DLPackOnly(a), DLPackOnly(b))
