"""What needs no GPU: traversals of the tile grid, plans, generated CUDA and shared-memory bank maps."""
import json

import numpy as np

from . import _tilegrid
from ._options import integer, option_text, plan_options


def grid(tiles, factor=1, method="swizzle-merge", group="m", *, ctas=False):
    """The order in which a traversal launches the tiles of a tiles[0] x tiles[1] grid.

    Returns an int64 array of shape `tiles`: entry [m, n] is the launch index (blockIdx.x) of the
    CTA that computes tile (m, n). With ctas=True, returns every launched CTA instead, in launch
    order: rows of (cta, tile_m, tile_n, valid), where valid is 0 for a CTA that split-merge
    launches past the grid and predicates off.

    factor: an integer, or a list of factors (one per nested level); method: "none",
    "split-merge" or "swizzle-merge"; group: "m" or "n" (the grouped dimension).
    """
    if not isinstance(tiles, (tuple, list)) or len(tiles) != 2:
        raise TypeError(f"tiles: expected a pair (tiles_m, tiles_n), got {tiles!r}")
    tiles_m, tiles_n = integer("tiles[0]", tiles[0]), integer("tiles[1]", tiles[1])
    factors = option_text("factor", list(factor) if isinstance(factor, (tuple, list)) else [factor])
    listing = _tilegrid.grid(tiles_m, tiles_n, factors, str(method), str(group))
    if ctas:
        return listing
    order = np.full((tiles_m, tiles_n), -1, dtype=np.int64)
    valid = listing[listing[:, 3] == 1]
    order[valid[:, 1], valid[:, 2]] = valid[:, 0]
    return order


def plan(m, n, k, **options):
    """The plan for an M x N x K GEMM as a dict: what `tilegrid plan --format json` prints
    (params, smem atoms, work split, decisions, tile ranking).

    Options are `tilegrid plan`'s, by their Python names: batch, layout ("TN", "NT", "NN", "TT"),
    dtype ("bf16", "fp16", "e4m3", "e5m2"), b_dtype, scale ("none", "tensor", "row", "block128"),
    out_dtype, lda, ldb, ldc, stride_a, stride_b, stride_c, epilogue, bias_dtype,
    c_in_dtype, residual_dtype, aux_dtype, arch ("sm_80", "sm_90"), factor, method, group,
    cta_tile (e.g. (128, 256, 64)), warp_tile, stages, cluster, persistent, stream_k, pingpong,
    swap_ab, pad_operands, mma_order, width_at_launch, fixed_choices (True / False), specialize_shape,
    deterministic, tuned. Planned for the arch's preset device (an H100 for sm_90), no GPU needed.
    """
    return json.loads(_tilegrid.plan(plan_options(m, n, k, options), "json"))


def plan_text(m, n, k, **options):
    """The plan as `tilegrid plan` prints it for people (same options as plan)."""
    return _tilegrid.plan(plan_options(m, n, k, options), "text")


def emit(m, n, k, **options):
    """The CUDA source of the kernel tilegrid schedules for an M x N x K GEMM (same options as plan)."""
    return _tilegrid.emit(plan_options(m, n, k, options))


def banks(layout, elem_bytes=2, threads=32, vec=1, swizzle=None):
    """How one warp-wide shared-memory read of `layout` falls on the 32 banks.

    layout: "(R,C):(S0,S1)" in elements, thread t reading row t; swizzle: (B, M, S) for
    Swizzle<B,M,S> on element offsets. Returns a dict: wavefronts and the ideal count, the phases,
    and every word read with its bank and the lanes reading it; its "map" is a (words, 32) array of
    lane counts per bank, one row per 128 bytes touched.
    """
    swizzle_text = "" if swizzle is None else option_text("swizzle", list(swizzle)).replace("x", ",")
    report = json.loads(_tilegrid.banks(str(layout), integer("elem_bytes", elem_bytes), integer("threads", threads),
                                        integer("vec", vec), swizzle_text, "json"))
    rows = sorted({w["word"] // 32 for w in report["words"]})
    bank_map = np.zeros((len(rows), 32), dtype=np.int64)
    at = {row: i for i, row in enumerate(rows)}
    for w in report["words"]:
        bank_map[at[w["word"] // 32], w["bank"]] = len(w["lanes"])
    report["map"] = bank_map
    report["map_rows"] = rows
    return report
