#!/usr/bin/env python3
"""PyTorch's kernels for the training-step workloads (bench/torch_reference.py's definitions):
the CUDA time of each kernel over a few steps, eager and torch.compile'd, as a table. The peer
side of a per-kernel comparison with Ember's EMBER_LOG=kernels (scripts/gpu-profile-steps.sh)."""
import argparse
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import torch_reference as ref  # noqa: E402

STEPS = {
    "mlp_train_step": ref.mlp_train_step,
    "transformer_block": ref.transformer_block,
    "conv_block_train": ref.conv_block_train,
    "gpt_small_train_step": ref.gpt_small_train_step,
}


def profile_step(step, steps):
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    return prof.key_averages().table(sort_by="cuda_time_total", row_limit=25)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--no-compile", action="store_true")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    # f32 convolutions as Ember computes them (bench/torch_reference.py's conv_block_train).
    torch.backends.cudnn.allow_tf32 = False
    for name, make in STEPS.items():
        if args.only and args.only not in name:
            continue
        modes = [("eager", make(torch.device("cuda")))]
        if not args.no_compile:
            modes.append(("compile", torch.compile(make(torch.device("cuda")))))
        for mode, step in modes:
            print(f"== {name} {mode} ({args.steps} steps)", flush=True)
            print(profile_step(step, args.steps), flush=True)


if __name__ == "__main__":
    main()
