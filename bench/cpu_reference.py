#!/usr/bin/env python3
"""CPU workloads side by side in one run: PyTorch's eager CPU time (2 threads, the median of
--iters steps after warm-up) and Ember's (ember_bench on EMBER_DEVICE=cpu, the median of its
repetitions), then the ratio Ember / PyTorch. Usage:
    python3 bench/cpu_reference.py build/bench/ember_bench [--iters 30] [--only conv2d_small]
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
import time

import torch


def conv2d_small():
    """The Burn guide's convolutions: 1->8 and 8->16 3x3 with bias, relu, adaptive average pool
    to 8x8, on a batch of 64 28x28 images; forward and backward to every parameter."""
    g = torch.Generator().manual_seed(0)
    x = torch.rand(64, 1, 28, 28, generator=g)
    w1 = ((torch.rand(8, 1, 3, 3, generator=g) * 2 - 1) * 0.3).requires_grad_()
    w2 = ((torch.rand(16, 8, 3, 3, generator=g) * 2 - 1) * 0.1).requires_grad_()
    b1 = torch.zeros(8, requires_grad=True)
    b2 = torch.zeros(16, requires_grad=True)
    F = torch.nn.functional

    def step():
        for p in (w1, w2, b1, b2):
            p.grad = None
        h = F.conv2d(F.conv2d(x, w1, b1), w2, b2)
        F.adaptive_avg_pool2d(torch.relu(h), (8, 8)).sum().backward()
    return step


WORKLOADS = {"conv2d_small": conv2d_small}


def torch_median_ms(make, iters):
    step = make()
    for _ in range(3):
        step()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def ember_median_ms(binary, name):
    out = subprocess.run(
        [binary, f"--benchmark_filter=BM_{name}/fused:1", "--benchmark_min_time=0.5",
         "--benchmark_format=json"],
        env={"EMBER_DEVICE": "cpu", "EMBER_NUM_THREADS": "2", "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=True).stdout
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            return b["real_time"]
    raise RuntimeError(f"no median for {name}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ember_bench")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--only", default="")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(2)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    for name, make in WORKLOADS.items():
        if args.only and not re.search(args.only, name):
            continue
        # Alternating rounds, so that a machine whose load drifts weighs on both alike; the
        # ratio is the median of the rounds' ratios.
        ts, es = [], []
        for _ in range(args.rounds):
            ts.append(torch_median_ms(make, args.iters))
            es.append(ember_median_ms(args.ember_bench, name))
        ratio = statistics.median(e / t for e, t in zip(es, ts))
        print(f"{name:20s} torch eager {statistics.median(ts):8.2f} ms   ember "
              f"{statistics.median(es):8.2f} ms   ember/torch {ratio:5.2f}x "
              f"(rounds: {', '.join(f'{e:.1f}/{t:.1f}' for e, t in zip(es, ts))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
