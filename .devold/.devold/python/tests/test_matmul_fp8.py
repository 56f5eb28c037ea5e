"""matmul on 8-bit float tensors (sm_90): e4m3 and e5m2 with tensor, row and 1x128/128x128 block
scales, against the fp32 product of the dequantized inputs; torch._scaled_mm's scale layouts; bad
input refused by name."""
import pytest

import tilegrid

pytestmark = pytest.mark.gpu


@pytest.fixture
def fp8_cuda(torch_cuda):
    if torch_cuda.cuda.get_device_capability() < (9, 0) or not hasattr(torch_cuda, "float8_e4m3fn"):
        pytest.skip("8-bit float GEMMs need an sm_90 device and a PyTorch with float8 types")
    return torch_cuda


def quantized(torch, m, n, k, a_type, b_type):
    """A (M x K, rows contiguous) and B (K x N, columns contiguous: the transpose of an N x K weight)."""
    g = torch.Generator(device="cuda").manual_seed(m * 131 + n * 7 + k)
    a = torch.randn(m, k, device="cuda", generator=g).to(a_type)
    b = torch.randn(n, k, device="cuda", generator=g).to(b_type).t()
    return a, b


def assert_close(out, ref, tolerance=2e-2):
    error = (out.float() - ref).norm() / ref.norm().clamp_min(1e-30)
    assert error < tolerance, f"relative error {error:.3g}"


@pytest.mark.parametrize("types", [("float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "float8_e4m3fn")])
@pytest.mark.parametrize("shape", [(1000, 515, 384), (1, 4096, 4096), (256, 384, 1000)])
def test_scales(fp8_cuda, types, shape):
    torch = fp8_cuda
    m, n, k = shape
    a, b = quantized(torch, m, n, k, getattr(torch, types[0]), getattr(torch, types[1]))
    product = a.float() @ b.float()
    out = tilegrid.matmul(a, b)
    assert out.dtype == torch.bfloat16
    assert_close(out, product)
    sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([3.0], device="cuda")
    assert_close(tilegrid.matmul(a, b, scale_a=sa, scale_b=sb), product * 1.5)
    ra = torch.rand(m, device="cuda") + 0.5
    rb = torch.rand(n, device="cuda") + 0.5
    assert_close(tilegrid.matmul(a, b, scale_a=ra, scale_b=rb, out_dtype="fp32"), product * ra[:, None] * rb[None, :])
    # Block scales in torch._scaled_mm's layouts: A's M-contiguous, B's rows padded to four K blocks.
    kb, nb = -(-k // 128), -(-n // 128)
    block_a = (torch.rand(m, kb, device="cuda") + 0.5).t().contiguous().t()
    padded = torch.rand(nb, (kb + 3) // 4 * 4, device="cuda") + 0.5
    block_b = padded[:, :kb]
    dequantized_a = a.float() * block_a.repeat_interleave(128, dim=1)[:, :k]
    dequantized_b = b.float() * block_b.repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k].t()
    assert_close(tilegrid.matmul(a, b, scale_a=block_a, scale_b=block_b), dequantized_a @ dequantized_b)


def test_fused_epilogue_sees_the_scaled_product(fp8_cuda):
    torch = fp8_cuda
    a, b = quantized(torch, 512, 768, 1024, torch.float8_e4m3fn, torch.float8_e4m3fn)
    bias = torch.randn(768, device="cuda", dtype=torch.bfloat16)
    ra, rb = torch.rand(512, device="cuda") + 0.5, torch.rand(768, device="cuda") + 0.5
    out = tilegrid.matmul(a, b, epilogue="relu(acc + bias[n])", bias=bias, scale_a=ra, scale_b=rb)
    ref = torch.relu((a.float() @ b.float()) * ra[:, None] * rb[None, :] + bias.float())
    assert_close(out, ref)


def test_bad_input_is_refused_naming_the_argument(fp8_cuda):
    torch = fp8_cuda
    a, b = quantized(torch, 64, 64, 128, torch.float8_e4m3fn, torch.float8_e4m3fn)
    one = torch.ones(1, device="cuda")
    with pytest.raises(TypeError, match="scale_b: needed with scale_a"):
        tilegrid.matmul(a, b, scale_a=one)
    with pytest.raises(TypeError, match="scales are fp32"):
        tilegrid.matmul(a, b, scale_a=one.half(), scale_b=one.half())
    with pytest.raises(TypeError, match="8-bit inputs; a and b are bf16"):
        tilegrid.matmul(a.bfloat16(), b.bfloat16(), scale_a=one, scale_b=one)
    with pytest.raises(ValueError, match="K-major"):
        tilegrid.matmul(a, b.contiguous())
    with pytest.raises(TypeError, match="8-bit floats"):
        tilegrid.matmul(a, b.bfloat16())
    with pytest.raises(ValueError, match="scale_a: 1x128 block scales"):
        tilegrid.matmul(a, b, scale_a=torch.ones(64, 1, device="cuda").t().contiguous(), scale_b=torch.ones(1, 1, device="cuda"),
                        scale="block128")


def test_dlpack_float8_inputs(fp8_cuda, dlpack_only):
    DLPackOnly = dlpack_only
    torch = fp8_cuda
    if not tilegrid._tilegrid.have_dlpack:
        pytest.skip("built without dlpack/dlpack.h")
    a, b = quantized(torch, 200, 264, 512, torch.float8_e4m3fn, torch.float8_e5m2)
    try:
        a.__dlpack__()
    except (BufferError, RuntimeError, TypeError) as e:
        pytest.skip(f"this PyTorch exports no float8 through DLPack: {e}")
    out = torch.empty(200, 264, device="cuda", dtype=torch.bfloat16)
    sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([2.0], device="cuda")
    tilegrid.matmul(DLPackOnly(a), DLPackOnly(b), DLPackOnly(out), scale_a=DLPackOnly(sa), scale_b=DLPackOnly(sb))
    torch.cuda.synchronize()
    assert_close(out, a.float() @ b.float())
