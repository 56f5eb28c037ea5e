#!/usr/bin/env python3
"""torch.compile(mode="max-autotune-no-cudagraphs") on a tilegrid bench suite.

Writes {"device": ..., "date": ..., "cases": {"<case>/<layout>": {"median_ms": ..., "turns": ...}}}, the
names `tilegrid bench` gives, for `tilegrid bench --from RUN.json --torch THIS.json`. Each case: the
operands laid out as the layout says (T: K-major A, N: K-major B, as tilegrid reads them), C = A @ B
compiled for exactly that shape, warmed up, then timed like the bench (each run alone between CUDA
events after an L2 flush and a GPU spin that hides Python's dispatch, at least --turns runs and
--seconds seconds, median). It runs in its own process, after the bench's. Every result is
checked against torch.matmul in fp32.

  python3 bench/torch_baseline.py --suite bench/suites/shapes.json --out torch.json [--filter REGEX]
"""
import argparse
import datetime
import json
import re
import statistics
import sys
import time

import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def operands(case, layout, dtype):
    m, n, k, batch = case["m"], case["n"], case["k"], case.get("batch", 1)
    # A is M x K and B is K x N logically; a K-major operand is stored with K contiguous.
    a = torch.randn(batch, m, k, device="cuda", dtype=dtype) if layout[0] == "T" else \
        torch.randn(batch, k, m, device="cuda", dtype=dtype).transpose(1, 2)
    b = torch.randn(batch, n, k, device="cuda", dtype=dtype).transpose(1, 2) if layout[1] == "N" else \
        torch.randn(batch, k, n, device="cuda", dtype=dtype)
    if batch == 1:
        a, b = a[0], b[0]
    return a, b


def run_case(case, layout, args, flush):
    dtype = DTYPES[case.get("dtype", "bf16")]
    out_dtype = DTYPES[case.get("out_dtype", case.get("dtype", "bf16"))]
    if case.get("lda") or case.get("ldb") or case.get("ldc"):
        return {"skipped": "padded leading dimensions are not modelled here"}
    a, b = operands(case, layout, dtype)
    fn = torch.compile(lambda x, y: (x @ y).to(out_dtype), mode="max-autotune-no-cudagraphs", dynamic=False)
    c = fn(a, b)
    ref = (a.float() @ b.float())
    err = ((c.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    for _ in range(10):
        fn(a, b)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times, began = [], time.time()
    while len(times) < args.turns or (time.time() - began < args.seconds and len(times) < 20000):
        flush.zero_()
        # Keeps the GPU busy while Python queues the call, so that the events time the GPU's work
        # alone, not the host's dispatch (tilegrid's own launches queue behind the flush likewise).
        torch.cuda._sleep(200_000)
        start.record()
        fn(a, b)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return {"median_ms": statistics.median(times), "turns": len(times), "norm_rel": err}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--filter", default="")
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    suite = json.load(open(args.suite))
    pattern = re.compile(args.filter)
    props = torch.cuda.get_device_properties(0)
    flush = torch.empty(2 * 64 * 2**20, dtype=torch.uint8, device="cuda")
    result = {"device": {"gpu": props.name, "torch": torch.__version__},
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "cases": {}}
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
