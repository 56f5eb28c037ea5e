"""The parts that need no GPU: traversals, plans, source, bank maps, and the errors of bad input
(matmul's included, where the input is refused before anything runs)."""
import itertools
import json

import numpy as np
import pytest

import tilegrid
import tilegrid.bench


@pytest.mark.parametrize("method", ["none", "split-merge", "swizzle-merge"])
@pytest.mark.parametrize("group", ["m", "n"])
def test_every_tile_is_computed_exactly_once(method, group):
    factors = (1,) if method == "none" else (1, 2, 3, 4)
    for tiles_m, tiles_n, factor in itertools.product(range(1, 9), range(1, 7), factors):
        ctas = tilegrid.grid((tiles_m, tiles_n), factor=factor, method=method, group=group, ctas=True)
        assert ctas.shape[1] == 4 and ctas.dtype == np.int64
        assert list(ctas[:, 0]) == list(range(len(ctas)))
        valid = ctas[ctas[:, 3] == 1]
        tiles = sorted(map(tuple, valid[:, 1:3].tolist()))
        assert tiles == [(m, n) for m in range(tiles_m) for n in range(tiles_n)], (tiles_m, tiles_n, factor)
        order = tilegrid.grid((tiles_m, tiles_n), factor=factor, method=method, group=group)
        assert sorted(order.ravel().tolist()) == sorted(valid[:, 0].tolist())


def test_swizzle_merge_launches_exactly_the_tiles_and_split_merge_pads():
    # 10 x 7 tiles, factor 4: 10 is not a multiple of 4 (seed 003's example).
    merged = tilegrid.grid((10, 7), factor=4, method="swizzle-merge", ctas=True)
    split = tilegrid.grid((10, 7), factor=4, method="split-merge", ctas=True)
    assert len(merged) == 70 and merged[:, 3].all()
    assert len(split) == 12 * 7 and (split[:, 3] == 0).sum() == 14


def test_grid_matches_the_command_line(cli):
    for method, factor in (("swizzle-merge", 4), ("split-merge", 3), ("none", 1)):
        csv = cli("grid", "--tiles", "10,7", "--factor", str(factor), "--method", method, "--format", "csv")
        rows = np.array([[int(x) for x in line.split(",")] for line in csv.strip().splitlines()[1:]])
        assert (tilegrid.grid((10, 7), factor=factor, method=method, ctas=True) == rows).all()


def test_plan_is_the_command_lines_json(cli):
    plan = tilegrid.plan(1000, 3000, 4096, layout="NT", cta_tile=(128, 128, 64), stages=6)
    assert plan == json.loads(cli("plan", "--m", "1000", "--n", "3000", "--k", "4096", "--layout", "NT",
                                  "--cta-tile", "128x128x64", "--stages", "6", "--format", "json"))
    assert plan["params"]["stages"] == 6


def test_plan_options_take_python_values():
    plan = tilegrid.plan(4096, 4096, 4096, swap_ab=True, persistent=True, factor=[2], epilogue="relu(acc + bias[n])")
    assert plan["params"]["swap_ab"] is True and plan["epilogue"]
    with pytest.raises(ValueError, match="sm_90 kernels only"):
        tilegrid.plan(4096, 4096, 4096, swap_ab=True, arch="sm_80")
    text = tilegrid.plan_text(64, 64, 65536)
    assert "kernel:" in text and "64x64x65536" in text
    assert plan["device"]["name"]
    sm80 = tilegrid.emit(4096, 4096, 4096, arch="sm_80")
    assert "tilegrid_sm80" in sm80 and "mma.sync" in sm80


def test_emit_is_the_command_lines_source(cli):
    assert tilegrid.emit(1001, 515, 257, layout="NT") == cli("emit", "--m", "1001", "--n", "515", "--k", "257",
                                                             "--layout", "NT")


def test_emit_prints_the_epilogue():
    source = tilegrid.emit(512, 512, 512, epilogue="gelu(alpha * acc + bias[n])")
    assert "tg_epilogue_value" in source


def test_banks():
    column = tilegrid.banks("(32,64):(64,1)", elem_bytes=2)
    assert column["wavefronts"] == 32 and column["ideal"] == 1
    assert column["map"].shape == (32, 32) and column["map"].sum() == 32
    swizzled = tilegrid.banks("(8,64):(64,1)", elem_bytes=2, threads=8, vec=8, swizzle=(3, 3, 3))
    assert swizzled["wavefronts"] == swizzled["ideal"]


@pytest.mark.parametrize("call, error, words", [
    (lambda: tilegrid.grid((10,), factor=4), TypeError, "tiles"),
    (lambda: tilegrid.grid((10, 7), factor=0), ValueError, "factor"),
    (lambda: tilegrid.grid((10, 7), method="zigzag"), ValueError, "zigzag"),
    (lambda: tilegrid.grid((10, 7.5)), TypeError, "tiles[1]"),
    (lambda: tilegrid.plan(0, 16, 16), ValueError, "m"),
    (lambda: tilegrid.plan(16.0, 16, 16), TypeError, "m: expected an integer"),
    (lambda: tilegrid.plan(64, 64, 64, bogus=3), TypeError, "bogus"),
    (lambda: tilegrid.plan(64, 64, 64, cta_tile=(7, 7, 7)), ValueError, "multiples of 8"),
    (lambda: tilegrid.plan(64, 64, 64, layout="XY"), ValueError, "XY"),
    (lambda: tilegrid.plan(64, 64, 64, stages="many"), ValueError, "stages"),
    (lambda: tilegrid.plan(64, 64, 64, epilogue="gelu(acc"), ValueError, "column"),
    (lambda: tilegrid.plan(64, 64, 64, epilogue="acc + bias[k]"), ValueError, "bias"),
    (lambda: tilegrid.banks("(32,64)", elem_bytes=2), ValueError, "layout"),
    (lambda: tilegrid.banks("(32,64):(64,1)", elem_bytes=3), ValueError, "element size"),
    # refused before torch is touched
    (lambda: tilegrid.bench.l2_flusher(None, "sideways"), ValueError, "'write' or 'read'"),
])
def test_bad_input_is_refused_naming_the_argument(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)
    assert "--" not in str(caught.value)  # options named the Python way


def test_matmul_refuses_host_arrays_before_running():
    a = np.zeros((64, 64), dtype=np.float16)
    with pytest.raises(ValueError, match="a: is on the CPU"):
        tilegrid.matmul(a, a)
    with pytest.raises(TypeError, match="a: expected a GPU tensor"):
        tilegrid.matmul([[1.0]], [[1.0]])


def test_errors_are_exported():
    assert issubclass(tilegrid.NoDeviceError, RuntimeError)
    assert issubclass(tilegrid.CompileError, RuntimeError)
