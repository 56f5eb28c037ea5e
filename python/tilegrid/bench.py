"""tilegrid.matmul against torch.matmul on a list of shapes, and the per-call overhead of each from
Python.

    python -m tilegrid.bench                         # the default shapes, bf16, TN
    python -m tilegrid.bench --shapes 4096x4096x4096 1x4096x4096 --layout NT --dtype fp16
    python -m tilegrid.bench --json results.json

Method (docs/python.md): the clocks warm up on a large GEMM first; each shape is checked against an
fp32 torch.matmul, then both run in turns, each launch alone between CUDA events after an L2
flush and a GPU spin that hides the call's host time, for at least --iters turns and --seconds of
wall time; medians are reported. The overhead
is the host time per call with the GPU kept busy, so that calls queue rather than wait: what a call
costs the Python thread.
"""
import argparse
import json
import statistics
import sys
import time

import tilegrid

DEFAULT_SHAPES = ["4096x4096x4096", "8192x8192x8192", "2048x2048x2048", "8192x1024x4096", "1000x3000x4096",
                  "4095x4097x4099", "1x4096x4096", "16x14336x4096", "128x128x65536", "512x512x512"]


def parse_shape(text):
    parts = text.lower().split("x")
    if len(parts) not in (3, 4) or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"expected MxNxK or BxMxNxK with positive integers, got {text!r}")
    values = [int(p) for p in parts]
    return (1, *values) if len(values) == 3 else tuple(values)


def make_operands(torch, batch, m, n, k, layout, dtype):
    lead = (batch,) if batch > 1 else ()
    a = torch.randn(*lead, m, k, device="cuda", dtype=dtype)
    b = torch.randn(*lead, k, n, device="cuda", dtype=dtype)
    if layout[0] == "N":
        a = a.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout[1] == "N":
        b = b.transpose(-1, -2).contiguous().transpose(-1, -2)
    return a, b


def l2_flusher(torch, how="write"):
    """A function that evicts the L2 through a buffer twice its size, as `tilegrid bench --flush` does:
    "write" zeroes it (as nvbench and Triton's do_bench do), leaving the L2 full of written lines that
    the timed kernel's reads evict and DRAM writes back while it reads; "read" sums it, leaving clean
    lines."""
    if how not in ("write", "read"):
        raise ValueError(f"L2 flush {how!r}: expected 'write' or 'read'")
    buffer = torch.zeros(2 * torch.cuda.get_device_properties(0).L2_cache_size // 4 + (1 << 20), device="cuda")
    if how == "write":
        return buffer.zero_
    total = torch.zeros((), device="cuda")
    return lambda: torch.sum(buffer, dim=0, out=total)


def time_in_turns(torch, calls, iters, seconds, flush, spin_cycles=200_000):
    """Each call alone between events after flush() (l2_flusher), in turns (each turn starts one
    further on). A GPU spin of spin_cycles clocks is queued before each timed call; it must outlast
    the call's host time, or the events time the host too."""
    times = [[] for _ in calls]
    start, turn = time.perf_counter(), 0
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    while turn < iters or time.perf_counter() - start < seconds:
        for j in range(len(calls)):
            which = (turn + j) % len(calls)
            flush()
            # A spin of about 100 us queued ahead of the timed call: its host time (measured apart,
            # below) overlaps the spin, so the events time the GPU's work alone, as for the C++ driver.
            torch.cuda._sleep(spin_cycles)
            begin.record()
            calls[which]()
            end.record()
            end.synchronize()
            times[which].append(begin.elapsed_time(end) * 1e3)
        turn += 1
    return [statistics.median(t) for t in times], turn


def overhead_us(torch, call, busy, calls=500):
    """Host microseconds per call while the GPU works through a long queue."""
    for _ in range(20):
        call()
    torch.cuda.synchronize()
    busy()  # queues enough GPU work that the calls below never wait for the device
    start = time.perf_counter()
    for _ in range(calls):
        call()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tilegrid.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", nargs="+", type=parse_shape, default=[parse_shape(s) for s in DEFAULT_SHAPES],
                        metavar="MxNxK", help="problems (BxMxNxK for batches)")
    parser.add_argument("--layout", default="TN", choices=["TN", "NT", "NN", "TT"])
    parser.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    parser.add_argument("--iters", type=int, default=200, help="at least this many timed turns (default 200)")
    parser.add_argument("--seconds", type=float, default=1.0, help="and at least this much wall time a shape")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--flush", default="write", choices=["write", "read"],
                        help="how the L2 is evicted before each timed call: zero a buffer twice its size (write, as "
                             "nvbench and Triton's do_bench do) or read it (clean lines)")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        sys.exit("python -m tilegrid.bench compares with torch.matmul: PyTorch is not installed")
    if not torch.cuda.is_available():
        sys.exit("python -m tilegrid.bench needs a CUDA device")
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    flush = l2_flusher(torch, args.flush)

    warm_a, warm_b = make_operands(torch, 1, 8192, 8192, 8192, "TN", dtype)
    start = time.perf_counter()
    while time.perf_counter() - start < 2.0:
        torch.matmul(warm_a, warm_b)
        torch.cuda.synchronize()
    del warm_a, warm_b

    rows = []
    print(f"{torch.cuda.get_device_name(0)}, {args.dtype}, {args.layout}; medians in microseconds", flush=True)
    print(f"{'problem':>22} {'tilegrid':>10} {'torch':>10} {'torch/tilegrid':>15} {'TFLOP/s':>8} {'error':>9}")
    for batch, m, n, k in args.shapes:
        a, b = make_operands(torch, batch, m, n, k, args.layout, dtype)
        out = tilegrid.matmul(a, b)  # compiles the kernel before timing
        ref = a.float() @ b.float()
        error = ((out.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
        if error > 1e-2:
            print(f"{batch}x{m}x{n}x{k}: relative error {error:.3g}, not timed", flush=True)
            rows.append({"batch": batch, "m": m, "n": n, "k": k, "error": error, "checked": False})
            continue
        torch_out = torch.empty_like(out)
        (ours, theirs), turns = time_in_turns(torch, [lambda: tilegrid.matmul(a, b, out),
                                                      lambda: torch.matmul(a, b, out=torch_out)],
                                              args.iters, args.seconds, flush)
        tflops = 2.0 * batch * m * n * k / (ours * 1e-6) / 1e12
        name = f"{batch}x{m}x{n}x{k}" if batch > 1 else f"{m}x{n}x{k}"
        print(f"{name:>22} {ours:10.1f} {theirs:10.1f} {theirs / ours:15.3f} {tflops:8.1f} {error:9.2e}", flush=True)
        rows.append({"batch": batch, "m": m, "n": n, "k": k, "tilegrid_us": ours, "torch_us": theirs, "turns": turns,
                     "error": error, "checked": True})
        del a, b, out, ref, torch_out

    # Per-call overhead from Python, on a problem whose kernel takes a few microseconds.
    a, b = make_operands(torch, 1, 64, 64, 64, args.layout, dtype)
    out, torch_out = tilegrid.matmul(a, b), torch.empty(64, 64, device="cuda", dtype=dtype)
    big_a, big_b = make_operands(torch, 1, 8192, 8192, 8192, "TN", dtype)

    def busy():  # about 60 ms of GPU work on an H100, several times what the timed calls take
        for _ in range(40):
            torch.matmul(big_a, big_b)

    ours_overhead = statistics.median(overhead_us(torch, lambda: tilegrid.matmul(a, b, out), busy) for _ in range(5))
    torch_overhead = statistics.median(overhead_us(torch, lambda: torch.matmul(a, b, out=torch_out), busy)
                                       for _ in range(5))
    print(f"per-call host overhead (64x64x64, out given): tilegrid.matmul {ours_overhead:.1f} us, "
          f"torch.matmul {torch_overhead:.1f} us")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "dtype": args.dtype, "layout": args.layout,
                       "iters": args.iters, "seconds": args.seconds, "runs": rows,
                       "overhead_us": {"tilegrid": ours_overhead, "torch": torch_overhead}}, f, indent=1)
    return 0 if all(r["checked"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
