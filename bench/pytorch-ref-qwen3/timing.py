"""Timing and output helpers shared by generate.py and grpo.py."""
import json
import os
import statistics
import time

import torch


def setup(threads):
    torch.set_num_threads(threads)
    torch.manual_seed(0)


def median(xs):
    return statistics.median(xs)


def matmul_gflops(n=1024, seconds=1.0):
    """Median GFLOP/s of a dense n x n x n fp32 matmul, timed for about a second after a warm-up (as swarm's bench)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    for _ in range(3):
        a @ b
    t0 = time.perf_counter()
    a @ b
    one = time.perf_counter() - t0
    ts = []
    for _ in range(int(max(10, min(200, seconds / one)))):
        t = time.perf_counter()
        a @ b
        ts.append(time.perf_counter() - t)
    return 2.0 * n ** 3 / median(ts) / 1e9


def rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return -1


def emit(summary):
    """The last line of output: one JSON object, keys as swarm's `bench ... --json` names them."""
    summary = dict(summary, torch_version=torch.__version__, threads=torch.get_num_threads(),
                   openblas_coretype=os.environ.get("OPENBLAS_CORETYPE"))
    print(json.dumps(summary), flush=True)
