#!/usr/bin/env python3
"""PyTorch reference figures for the workloads of ../shared/BENCHMARKS.md.

Runs each workload in eager mode and (unless --no-compile) under torch.compile on the current
CUDA device, timing with CUDA events after warm-up, and prints one JSON object:
{"device": ..., "torch": ..., "results": [{"name", "mode", "median_ms", "gbps"|"tflops"}]}.
The Ember report joins on "name".
"""
import argparse
import json
import re
import math
import statistics
import sys

import torch


def timed(fn, iters, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def workloads(dev):
    g = torch.Generator(device=dev).manual_seed(0)

    def rand(*shape, dtype=torch.float32):
        return torch.rand(*shape, generator=g, device=dev, dtype=dtype) * 2 - 1

    n64 = 1 << 26
    x64 = rand(n64)
    src = rand(1 << 28)
    dst = torch.empty_like(src)
    rows, cols = 16384, 4096
    xm = rand(rows, cols)
    w, b = rand(1, cols), rand(1, cols)
    p, grad, m, v = rand(n64), rand(n64), rand(n64), rand(n64).abs()

    def gelu(x):
        return x * (torch.erf(x / math.sqrt(2.0)) + 1) / 2

    def layernorm(x):
        mean = x.mean(dim=1, keepdim=True)
        c = x - mean
        var = (c * c).mean(dim=1, keepdim=True)
        return c / torch.sqrt(var + 1e-5) * w + b

    def softmax(x):
        e = torch.exp(x - x.max(dim=1, keepdim=True).values)
        return e / e.sum(dim=1, keepdim=True)

    def adam(p, grad, m, v):
        m2 = m * 0.9 + grad * 0.1
        v2 = v * 0.999 + grad * grad * 0.001
        p2 = p - (m2 / 0.1) * 1e-3 / (torch.sqrt(v2 / 0.001) + 1e-8)
        return p2, m2, v2

    a32, b32 = rand(4096, 4096), rand(4096, 4096)
    a16, b16 = rand(8192, 8192, dtype=torch.bfloat16), rand(8192, 8192, dtype=torch.bfloat16)
    c1k = rand(1024)
    # gpt_small_train_step's products (bench/workloads_bench.cc BM_matmul_gpt): M x N x K.
    gpt = {}
    for m, n, k, at in [(8192, 768, 768, 0), (8192, 3072, 768, 0), (8192, 768, 3072, 0),
                        (8192, 50304, 768, 0), (768, 768, 8192, 1)]:
        a = rand(k, m, dtype=torch.bfloat16).t() if at else rand(m, k, dtype=torch.bfloat16)
        gpt[f"matmul_gpt_{m}x{n}x{k}" + ("_at" if at else "")] = (
            a, rand(k, n, dtype=torch.bfloat16), 2.0 * m * n * k)

    a8k, b8k = rand(8192, 8192), rand(8192, 8192)

    def tf32_matmul(a=a32, b=b32):
        torch.backends.cuda.matmul.allow_tf32 = True
        c = a @ b
        torch.backends.cuda.matmul.allow_tf32 = False
        return c

    def chain(x):
        for _ in range(100):
            x = x * 1.0001 + 0.0001
        return x

    return [
        ("copy_1GiB", lambda: dst.copy_(src), None, 8.0 * (1 << 28), 0),
        ("gelu_64M", lambda: gelu(x64), gelu, 8.0 * n64, 0),
        ("layernorm_16384x4096", lambda: layernorm(xm), layernorm, 8.0 * rows * cols, 0),
        ("softmax_16384x4096", lambda: softmax(xm), softmax, 8.0 * rows * cols, 0),
        ("adam_64M", lambda: adam(p, grad, m, v), adam, 28.0 * n64, 0),
        ("matmul_4096_f32", lambda: a32 @ b32, None, 0, 2.0 * 4096 ** 3),
        ("matmul_4096_tf32", tf32_matmul, None, 0, 2.0 * 4096 ** 3),
        ("matmul_8192_f32", lambda: a8k @ b8k, None, 0, 2.0 * 8192 ** 3),
        ("matmul_8192_tf32", lambda: tf32_matmul(a8k, b8k), None, 0, 2.0 * 8192 ** 3),
        ("matmul_4096_tf32_nt", lambda: tf32_matmul(a32, b32.t()), None, 0, 2.0 * 4096 ** 3),
        ("matmul_8192_tf32_nt", lambda: tf32_matmul(a8k, b8k.t()), None, 0, 2.0 * 8192 ** 3),
        ("matmul_8192_bf16", lambda: a16 @ b16, None, 0, 2.0 * 8192 ** 3),
        ("chain100_1K", lambda: chain(c1k), chain, 0, 0),
    ] + [(name, lambda a=a, b=b: a @ b, None, 0, flops)
         for name, (a, b, flops) in gpt.items()], {"gelu": (x64,), "layernorm": (xm,), "softmax": (xm,), "adam": (p, grad, m, v),
        "chain": (c1k,)}


def mlp_train_step(dev):
    """3 x Linear(2048, 2048), ReLU between, batch 1024, MSE loss, backward, Adam."""
    nn = torch.nn
    model = nn.Sequential(nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                          nn.Linear(2048, 2048)).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.rand(1024, 2048, device=dev) * 2 - 1
    y = torch.rand(1024, 2048, device=dev) * 2 - 1

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


class Block(torch.nn.Module):
    """Pre-norm block: LayerNorm, QKV, 16-head attention (explicit softmax), out, residual,
    LayerNorm, 4x GELU MLP, residual."""

    def __init__(self, d=1024, heads=16):
        super().__init__()
        nn = torch.nn
        self.h, self.d = heads, d
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.out = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (t.reshape(b, s, self.h, d // self.h).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(2, 3) / math.sqrt(d // self.h)
        e = torch.exp(scores - scores.amax(dim=3, keepdim=True))
        attn = (e / e.sum(dim=3, keepdim=True)) @ v
        x = x + self.out(attn.transpose(1, 2).reshape(b, s, d))
        h = self.fc1(self.ln2(x))
        h = h * (torch.erf(h / math.sqrt(2.0)) + 1) / 2
        return x + self.fc2(h)


def transformer_block(dev):
    block = Block().to(dev)
    x = torch.randn(8, 1024, 1024, device=dev)

    def step():
        for p in block.parameters():
            p.grad = None
        block(x).sum().backward()
    return step


def conv2d_resnet(dev, dtype, train):
    """3x3 64->64 convolution, 56x56, batch 32; forward, or forward and backward to x and w."""
    x = torch.randn(32, 64, 56, 56, device=dev, dtype=dtype, requires_grad=train)
    w = (torch.randn(64, 64, 3, 3, device=dev, dtype=dtype) * 0.05).requires_grad_(train)

    def step():
        y = torch.nn.functional.conv2d(x, w, padding=1)
        if train:
            x.grad = w.grad = None
            (y * y).sum().backward()
        return y
    return step


def conv2d_depthwise(dev):
    x = torch.randn(32, 256, 56, 56, device=dev)
    w = torch.randn(256, 1, 3, 3, device=dev) * 0.3

    def step():
        return torch.nn.functional.conv2d(x, w, padding=1, groups=256)
    return step


class ConvBlock(torch.nn.Module):
    """conv-bn-relu-conv-bn + residual, relu (a ResNet basic block, training mode)."""
    def __init__(self, c=64):
        super().__init__()
        self.c1 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.b1 = torch.nn.BatchNorm2d(c)
        self.c2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.b2 = torch.nn.BatchNorm2d(c)

    def forward(self, x):
        h = torch.relu(self.b1(self.c1(x)))
        return torch.relu(self.b2(self.c2(h)) + x)


def conv_block_train(dev):
    block = ConvBlock().to(dev)
    x = torch.randn(32, 64, 56, 56, device=dev)

    def step():
        for p in block.parameters():
            p.grad = None
        block(x).sum().backward()
    return step


def conv_steps():
    """(name, maker, cudnn TF32 allowed) for the convolution workloads of issue 19."""
    steps = []
    for tname, dtype, tf32 in (("f32", torch.float32, False), ("tf32", torch.float32, True),
                               ("bf16", torch.bfloat16, False)):
        for train in (False, True):
            name = "conv2d_resnet_" + tname + ("_train" if train else "")
            steps.append((name, lambda d, dt=dtype, t=train: conv2d_resnet(d, dt, t), tf32))
    steps.append(("conv2d_depthwise", conv2d_depthwise, False))
    steps.append(("conv_block_train", conv_block_train, False))
    return steps


def resnet18_param_shapes():
    """The 62 parameter tensors of torchvision's ResNet-18 (11.69M values), as optim_bench.cc."""
    shapes = [(64, 3, 7, 7), (64,), (64,)]
    cin = 64
    for width in (64, 128, 256, 512):
        for block in range(2):
            down = block == 0 and width != 64
            shapes += [(width, cin if block == 0 else width, 3, 3), (width,), (width,),
                       (width, width, 3, 3), (width,), (width,)]
            if down:
                shapes += [(width, cin, 1, 1), (width,), (width,)]
        cin = width
    return shapes + [(512, 1000), (1000,)]


def optimizer_steps():
    """optimizer_step: one AdamW step over ResNet-18's parameters with fixed gradients, torch's
    foreach and fused implementations (not compiled: the step is the workload)."""
    def make(impl):
        def maker(dev):
            params = [torch.nn.Parameter(torch.randn(s, device=dev) * 0.05)
                      for s in resnet18_param_shapes()]
            for p in params:
                p.grad = torch.randn_like(p) * 1e-2
            opt = torch.optim.AdamW(params, lr=1e-3, **{impl: True})
            return opt.step
        return maker
    return [("optimizer_step_foreach", make("foreach")), ("optimizer_step_fused", make("fused"))]


def run_optimizer_steps(args, results):
    for name, make in optimizer_steps():
        if args.only and not re.search(args.only, name):
            continue
        try:
            ms = timed(make(torch.device("cuda")), args.iters)
        except Exception as e:  # report, keep going
            results.append({"name": name, "mode": "eager", "error": str(e)[:200]})
            continue
        r = {"name": name, "mode": "eager", "median_ms": ms}
        results.append(r)
        print(json.dumps(r), file=sys.stderr)


class GptSmall(torch.nn.Module):
    """GPT-2 small as BM_gpt_small_train_step: token and learned position embeddings, 12 pre-norm
    causal layers (d 768, 12 heads, 4x GELU MLP, no dropout), final LayerNorm, LM head over 50304
    tokens."""

    def __init__(self, vocab=50304, seq=1024, d=768, heads=12, layers=12):
        super().__init__()
        nn = torch.nn
        self.tokens, self.positions = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(seq))

    def forward(self, tokens):
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.tokens(tokens) + self.positions(pos)
        x = self.blocks(x, mask=self.mask, is_causal=True)
        return self.head(self.norm(x))


def gpt_small_train_step(dev):
    """bf16 weights and activations, loss in f32, AdamW (lr 3e-4), batch 8 x 1024 tokens."""
    model = GptSmall().to(dev, torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=1e-4, eps=1e-5)
    tokens = torch.randint(0, 50304, (8, 1024), device=dev)
    targets = torch.randint(0, 50304, (8 * 1024,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        logits = model(tokens).reshape(-1, 50304).float()
        loss = torch.nn.functional.cross_entropy(logits, targets)
        loss.backward()
        opt.step()
        return loss
    return step


def lstm(dev):
    """2-layer cuDNN LSTM (input and hidden 512), batch 64, 256 steps, f32, forward and backward
    of the outputs' sum."""
    m = torch.nn.LSTM(512, 512, num_layers=2, batch_first=True).to(dev)
    x = torch.randn(64, 256, 512, device=dev)

    def step():
        for p in m.parameters():
            p.grad = None
        y, _ = m(x)
        y.sum().backward()
    return step


def seq_steps():
    """(name, maker, cudnn TF32 allowed) for the sequence-model steps of issue 21."""
    return [("gpt_small_train_step", gpt_small_train_step, False), ("lstm", lstm, False)]


def attention_workloads(args, results):
    """SDPA on the flash backend, [8, 16, seq, 64] bf16, as BM_attention_*: reported as "eager"
    (the flash kernel is PyTorch's eager path)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    dev = torch.device("cuda")
    for seq in (1024, 4096):
        for causal in (False, True):
            for train in (False, True):
                name = f"attention_s{seq}" + ("_causal" if causal else "") + \
                    ("_fwd_bwd" if train else "_fwd")
                if args.only and not re.search(args.only, name):
                    continue
                q, k, v = (torch.randn(8, 16, seq, 64, device=dev, dtype=torch.bfloat16,
                                       requires_grad=train) for _ in range(3))

                def step(q=q, k=k, v=v, causal=causal, train=train):
                    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                        y = torch.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                             is_causal=causal)
                    if train:
                        q.grad = k.grad = v.grad = None
                        y.float().sum().backward()
                    return y
                try:
                    ms = timed(step, args.iters)
                except Exception as e:  # report, keep going
                    results.append({"name": name, "mode": "eager", "error": str(e)[:200]})
                    continue
                flops = (0.5 if causal else 1.0) * 4 * 8 * 16 * seq * seq * 64 * \
                    (3.5 if train else 1.0)
                r = {"name": name, "mode": "eager", "median_ms": ms,
                     "tflops": flops / (ms / 1e3) / 1e12}
                results.append(r)
                print(json.dumps(r), file=sys.stderr)


def run_steps(args, results):
    """Training steps: eager and torch.compile'd, with the step's peak memory."""
    steps = [("mlp_train_step", mlp_train_step, False),
             ("transformer_block", transformer_block, False)] + conv_steps() + seq_steps()
    for name, make, tf32 in steps:
        if args.only and not re.search(args.only, name):
            continue
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cudnn.benchmark = True
        modes = [("eager", make(torch.device("cuda")))]
        if not args.no_compile:
            modes.append(("compile", torch.compile(make(torch.device("cuda")))))
        for mode, f in modes:
            try:
                f()
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                ms = timed(f, args.iters)
                peak = torch.cuda.max_memory_allocated() / 2 ** 30
            except Exception as e:  # report, keep going
                results.append({"name": name, "mode": mode, "error": str(e)[:200]})
                continue
            r = {"name": name, "mode": mode, "median_ms": ms, "peak_gib": peak}
            results.append(r)
            print(json.dumps(r), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--only", default="", help="regex: run the workloads whose names match")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print(json.dumps({"error": "no CUDA device"}))
        return 1
    dev = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    work, inputs = workloads(dev)
    results = []
    for name, eager, fn, nbytes, flops in work:
        if args.only and not re.search(args.only, name):
            continue
        modes = [("eager", eager)]
        if fn is not None and not args.no_compile:
            compiled = torch.compile(fn)
            key = fn.__name__
            modes.append(("compile", lambda c=compiled, a=inputs[key]: c(*a)))
        for mode, f in modes:
            try:
                ms = timed(f, args.iters)
            except Exception as e:  # report, keep going
                results.append({"name": name, "mode": mode, "error": str(e)[:200]})
                continue
            r = {"name": name, "mode": mode, "median_ms": ms}
            if nbytes:
                r["gbps"] = nbytes / (ms / 1e3) / 1e9
            if flops:
                r["tflops"] = flops / (ms / 1e3) / 1e12
            results.append(r)
            print(json.dumps(r), file=sys.stderr)
    run_steps(args, results)
    run_optimizer_steps(args, results)
    attention_workloads(args, results)
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
