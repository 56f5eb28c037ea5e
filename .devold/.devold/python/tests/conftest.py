import os
import subprocess

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs PyTorch with a CUDA device (skipped otherwise)")


@pytest.fixture(scope="session")
def torch_cuda():
    """PyTorch, where it is installed and sees a GPU; the test is skipped otherwise."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch


@pytest.fixture(scope="session")
def cli():
    """Runs the tilegrid command-line program of the same build (TILEGRID_EXE), returning stdout."""
    exe = os.environ.get("TILEGRID_EXE")
    if not exe:
        pytest.skip("TILEGRID_EXE is not set (ctest sets it)")

    def run(*args):
        return subprocess.run([exe, *args], check=True, capture_output=True, text=True).stdout

    return run


class DLPackOnly:
    """A tensor seen only through DLPack, as CuPy or JAX arrays are."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, stream=None):
        return self.tensor.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


@pytest.fixture(scope="session")
def dlpack_only():
    """Wraps a tensor so that tilegrid reads it through DLPack alone (DLPackOnly)."""
    return DLPackOnly
