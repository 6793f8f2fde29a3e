#!/usr/bin/env python3
"""ResNet-18 inference on the CPU from the same ONNX file as bench/onnx_bench.cc: ONNX Runtime
(CPU provider) on the file, and PyTorch (eager, eval, no_grad) on torchvision's resnet18 of the
same architecture. Prints the median milliseconds per batch at batch 1 and 32, in f32, and in
bf16 for PyTorch only.

Usage: bench/onnx_reference.py RESNET18.onnx [repeats]
(onnxruntime, torch and torchvision are needed only here.)
"""
import statistics
import sys
import time

import numpy as np


def median_ms(fn, repeats):
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main():
    path = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    import onnxruntime as ort
    import torch
    import torchvision

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    net = torchvision.models.resnet18(weights=None).eval()
    print(f"threads: torch {torch.get_num_threads()}")
    for batch in (1, 32):
        x = np.random.default_rng(0).standard_normal((batch, 3, 224, 224), dtype=np.float32)
        ort_ms = median_ms(lambda: sess.run(None, {name: x}), repeats)
        xt = torch.from_numpy(x)
        with torch.no_grad():
            torch_ms = median_ms(lambda: net(xt), repeats)
        net16, x16 = net.to(torch.bfloat16), xt.to(torch.bfloat16)
        with torch.no_grad():
            torch16_ms = median_ms(lambda: net16(x16), repeats)
        net.float()
        print(f"batch {batch}: onnxruntime {ort_ms:.1f} ms, torch eager {torch_ms:.1f} ms, "
              f"torch eager bf16 {torch16_ms:.1f} ms")


if __name__ == "__main__":
    main()
