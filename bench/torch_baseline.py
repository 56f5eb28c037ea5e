#!/usr/bin/env python3
"""torch.compile(mode="max-autotune-no-cudagraphs") on a tilegrid bench suite, timed in turns with
tilegrid.matmul and torch.matmul in one process.

Writes {"device": ..., "date": ..., "cases": {"<case>/<layout>": {...}}}, the names `tilegrid bench`
gives, for `tilegrid bench --from RUN.json --torch THIS.json`. Each case: the operands laid out as
the layout says (T: K-major A, N: K-major B, as tilegrid reads them; `lda`, `ldb` and `ldc` as
padded rows), C = A @ B compiled by torch.compile for exactly that shape, warmed up, then three
contenders timed in turns like the bench (each call alone between CUDA events after an L2 flush,
--flush write or read as `tilegrid bench --flush`,
and a GPU spin of about 1 ms that hides Python's dispatch, at least --turns turns and --seconds seconds,
medians): torch.compile (`median_ms`), tilegrid.matmul (`tilegrid_ms`, launched without overlapping
the kernel before it, as the bench's are) and torch.matmul (`torch_matmul_ms`, cuBLAS, where C has
the inputs' dtype). `tilegrid bench --torch` takes torch.compile over tilegrid from these turns,
so the ratio compares kernels timed in one process, not two runs. Every result is checked against
torch.matmul in fp32; a case whose result is off is recorded with its error and not timed.

  PYTHONPATH=build/release/python python3 bench/torch_baseline.py --suite bench/suites/shapes.json \
      --out torch.json [--filter REGEX]
"""
import argparse
import datetime
import json
import re
import sys
import time

import torch

try:
    import tilegrid
    from tilegrid.bench import l2_flusher, time_in_turns
except ImportError as e:
    sys.exit(f"bench/torch_baseline.py times tilegrid.matmul beside torch.compile: {e}; build the Python package and "
             "put it on PYTHONPATH (PYTHONPATH=build/release/python)")

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
# The GPU spin before each timed call, in clocks (about 1 ms): a compiled function's call can spend
# longer than tilegrid.bench's default 0.1 ms on the host (guards, a Triton launch, tensor
# descriptors), and the spin must outlast it for the events to time the kernel alone.
SPIN_CYCLES = 2_000_000
# Relative Frobenius error a checked result may have against the fp32 product (bf16 rounding of C
# and of the inputs' products, summed over K, stays far below it).
MAX_ERROR = 1e-2


def padded(rows, cols, ld, dtype):
    """A rows x cols matrix with contiguous rows `ld` elements apart (ld 0: packed)."""
    storage = torch.randn(rows, max(ld, cols), device="cuda", dtype=dtype)
    return storage[:, :cols]


def operands(case, layout, dtype):
    m, n, k, batch = case["m"], case["n"], case["k"], case.get("batch", 1)
    lda, ldb = case.get("lda", 0), case.get("ldb", 0)
    if (lda or ldb) and batch > 1:
        raise ValueError("padded leading dimensions of batched operands are not modelled here")
    if batch > 1:
        # A is M x K and B is K x N logically; a K-major operand is stored with K contiguous.
        a = torch.randn(batch, m, k, device="cuda", dtype=dtype) if layout[0] == "T" else \
            torch.randn(batch, k, m, device="cuda", dtype=dtype).transpose(1, 2)
        b = torch.randn(batch, n, k, device="cuda", dtype=dtype).transpose(1, 2) if layout[1] == "N" else \
            torch.randn(batch, k, n, device="cuda", dtype=dtype)
        return a, b
    a = padded(m, k, lda, dtype) if layout[0] == "T" else padded(k, m, lda, dtype).t()
    b = padded(n, k, ldb, dtype).t() if layout[1] == "N" else padded(k, n, ldb, dtype)
    return a, b


def output(case, out_dtype):
    m, n, batch = case["m"], case["n"], case.get("batch", 1)
    if batch > 1:
        return torch.empty(batch, m, n, device="cuda", dtype=out_dtype)
    return torch.empty(m, max(case.get("ldc", 0), n), device="cuda", dtype=out_dtype)[:, :n]


def relative_error(c, ref):
    return ((c.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def run_case(case, layout, args, flush):
    dtype = DTYPES[case.get("dtype", "bf16")]
    out_dtype = DTYPES[case.get("out_dtype", case.get("dtype", "bf16"))]
    a, b = operands(case, layout, dtype)
    ref = a.float() @ b.float()
    compiled = torch.compile(lambda x, y: (x @ y).to(out_dtype), mode="max-autotune-no-cudagraphs", dynamic=False)
    ours_out = output(case, out_dtype)
    contenders = {"median_ms": lambda: compiled(a, b),
                  "tilegrid_ms": lambda: tilegrid.matmul(a, b, ours_out, overlap_prior_kernel=False)}
    if out_dtype == dtype:
        cublas_out = torch.empty_like(ref, dtype=out_dtype)
        contenders["torch_matmul_ms"] = lambda: torch.matmul(a, b, out=cublas_out)
    result = {"norm_rel": relative_error(compiled(a, b), ref)}
    contenders["tilegrid_ms"]()
    result["tilegrid_norm_rel"] = relative_error(ours_out, ref)
    if result["norm_rel"] > MAX_ERROR or result["tilegrid_norm_rel"] > MAX_ERROR:
        result["error"] = "a result is off (norm_rel, tilegrid_norm_rel against the fp32 product); not timed"
        return result
    for call in contenders.values():  # warm-up
        for _ in range(10):
            call()
    medians, turns = time_in_turns(torch, list(contenders.values()), args.turns, args.seconds, flush, SPIN_CYCLES)
    for name, us in zip(contenders, medians):
        result[name] = us * 1e-3
    result["turns"] = turns
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--filter", default="")
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--flush", default="write", choices=["write", "read"],
                        help="how the L2 is evicted before each timed call, as `tilegrid bench --flush`")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/torch_baseline.py needs a CUDA device")
    suite = json.load(open(args.suite))
    pattern = re.compile(args.filter)
    props = torch.cuda.get_device_properties(0)
    flush = l2_flusher(torch, args.flush)
    result = {"device": {"gpu": props.name, "torch": torch.__version__},
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "l2_flush": args.flush,
              "cases": {}}
    # The clocks settle on a large GEMM first, as in the bench.
    warm_a, warm_b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16), \
        torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    began = time.time()
    while time.time() - began < 2.0:
        torch.matmul(warm_a, warm_b)
        torch.cuda.synchronize()
    del warm_a, warm_b
    for case in suite["cases"]:
        for layout in case.get("layouts", ["TN", "NT"]):
            name = f"{case['name']}/{layout}"
            if not pattern.search(f"{name} {case.get('category', '')}"):
                continue
            began = time.time()
            try:
                result["cases"][name] = run_case(case, layout, args, flush)
            except Exception as e:  # a shape torch cannot compile is recorded, not fatal
                result["cases"][name] = {"error": str(e).splitlines()[0][:300]}
            print(f"{name}: {result['cases'][name]} ({time.time() - began:.0f} s)", file=sys.stderr, flush=True)
            torch._dynamo.reset()
            # Written after every case: a run cut short keeps what it measured.
            json.dump(result, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
