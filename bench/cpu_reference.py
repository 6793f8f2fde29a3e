#!/usr/bin/env python3
"""CPU workloads side by side in one run: PyTorch's CPU time, eager and torch.compile (2 threads,
the median of --iters steps after warm-up), and Ember's (ember_bench on EMBER_DEVICE=cpu, the
median of its repetitions), then the ratios Ember / PyTorch. Rounds alternate the peers so that a
drifting machine load weighs on all alike. Usage:
    python3 bench/cpu_reference.py build/bench/ember_bench [--iters 30] [--only conv2d_small]
        [--no-compile] [--device cpu|cpu-ref]
"""
import argparse
import json
import os
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


def mlp_train_step_cpu():
    """examples/fashion_mnist's MLP (784-256-256-10, ReLU), batch 64, cross-entropy, Adam."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
    return classifier_step(model, torch.rand(64, 784))


def classifier_step(model, x):
    """A training step of `model` on batch x (64 items, 10 classes): cross-entropy, Adam."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    y = torch.arange(64) % 10
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()
    return step, model


class GuideCnn(torch.nn.Module):
    """The Burn guide's CNN as examples/guide/model.h writes it."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3)
        self.conv2 = torch.nn.Conv2d(8, 16, 3)
        self.pool = torch.nn.AdaptiveAvgPool2d((8, 8))
        self.dropout = torch.nn.Dropout(0.5)
        self.linear1 = torch.nn.Linear(1024, 512)
        self.linear2 = torch.nn.Linear(512, 10)

    def forward(self, images):
        x = images.unsqueeze(1)
        x = self.dropout(self.conv1(x))
        x = torch.relu(self.dropout(self.conv2(x)))
        h = self.pool(x).flatten(1)
        h = torch.relu(self.dropout(self.linear1(h)))
        return self.linear2(h)


def guide_cnn_step_cpu():
    torch.manual_seed(0)
    return classifier_step(GuideCnn(), torch.rand(64, 28, 28))


def pointwise(fn):
    def make():
        x = torch.rand(1024, 4096) * 2 - 1
        return (lambda: fn(x)), None
    return make


def layernorm(x):
    w, b = torch.ones(4096), torch.zeros(4096)
    c = x - x.mean(1, keepdim=True)
    return c / ((c * c).mean(1, keepdim=True) + 1e-5).sqrt() * w + b


def matmul_1024_f32():
    a, b = torch.rand(1024, 1024), torch.rand(1024, 1024)
    return (lambda: a @ b), None


def conv2d_small_step():
    return conv2d_small(), None


# name -> (factory of (step, module or None), whether torch.compile applies to the step)
WORKLOADS = {
    "mlp_train_step_cpu": mlp_train_step_cpu,
    "guide_cnn_step_cpu": guide_cnn_step_cpu,
    "conv2d_small": conv2d_small_step,
    "gelu_4M": pointwise(torch.nn.functional.gelu),  # the exact (erf) form, as Ember's
    "layernorm_4M": pointwise(layernorm),
    "softmax_4M": pointwise(lambda x: torch.softmax(x, 1)),  # the library's, as Ember's
    "matmul_1024_f32": matmul_1024_f32,
}


def compiled(make):
    """The workload with torch.compile: the model (training steps) or the function."""
    def make_compiled():
        step, model = make()
        if model is not None:
            model.compile()
            return step, model
        return torch.compile(step), None
    return make_compiled


def torch_median_ms(make, iters):
    step, _ = make()
    for _ in range(3):
        step()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def ember_median_ms(binary, name, device):
    out = subprocess.run(
        [binary, f"--benchmark_filter=^BM_{name}/fused:1/", "--benchmark_min_time=0.5",
         "--benchmark_format=json"],
        env={"EMBER_DEVICE": device, "EMBER_NUM_THREADS": "2", "PATH": "/usr/bin:/bin",
             "HOME": os.environ.get("HOME", "/tmp")},
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
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--device", default="cpu", help="Ember's device: cpu or cpu-ref")
    args = ap.parse_args()
    torch.set_num_threads(2)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; ember on {args.device}")
    for name, make in WORKLOADS.items():
        if args.only and not re.search(args.only, name):
            continue
        # Alternating rounds; each ratio is the median of the rounds' ratios.
        ts, cs, es = [], [], []
        for _ in range(args.rounds):
            ts.append(torch_median_ms(make, args.iters))
            if not args.no_compile:
                cs.append(torch_median_ms(compiled(make), args.iters))
            es.append(ember_median_ms(args.ember_bench, name, args.device))
        line = (f"{name:20s} ember {statistics.median(es):8.3f} ms   torch eager "
                f"{statistics.median(ts):8.3f} ms ({statistics.median(e / t for e, t in zip(es, ts)):5.2f}x)")
        if cs:
            line += (f"   torch.compile {statistics.median(cs):8.3f} ms "
                     f"({statistics.median(e / c for e, c in zip(es, cs)):5.2f}x)")
        print(line + f"   rounds ember/eager/compile: " +
              ", ".join(f"{e:.2f}/{t:.2f}/{c:.2f}" for e, t, c in
                        zip(es, ts, cs or [float('nan')] * len(es))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
