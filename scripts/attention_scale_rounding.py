#!/usr/bin/env python3
"""The tolerance of AttentionKernel.HandWrittenScaleChangesBetweenRepeatedSteps, from PyTorch on
the CPU: how far the hand-written program (bf16 scores rounded before the scale) and the fused
kernel (f32 scores) part at each scale, and how far a stale scale would move the outputs. Inputs
as the test's: [1, 2, 130, 64], uniform in [-2, 2], rounded to bf16."""
import torch


def inputs(seed):
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(1, 2, 130, 64, generator=g) * 4 - 2).bfloat16() for _ in range(3)]


def program(q, k, v, scale):
    p = torch.softmax((q @ k.transpose(2, 3)).float() * scale, 3).bfloat16()
    return (p @ v).float()


def fused(q, k, v, scale):
    p = torch.softmax((q.float() @ k.float().transpose(2, 3)) * scale, 3).bfloat16()
    return p.float() @ v.float()


for scale in (0.03125, 0.0625, 0.125, 0.25, 0.5, 1.5):
    worst = max((program(*inputs(s), scale) - fused(*inputs(s), scale)).abs().max().item()
                for s in range(3))
    print(f"scale {scale}: program against fused kernel, largest difference {worst:.4f}")
for new, old in ((0.0625, 0.125), (0.03125, 0.0625)):
    moved = min((fused(*inputs(s), new) - fused(*inputs(s), old)).abs().max().item()
                for s in range(3))
    print(f"scale {new} run with a stale {old}: outputs move by at least {moved:.3f}")
