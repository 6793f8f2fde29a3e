#!/usr/bin/env python3
"""Fits the f32 erf stand-in of jit/codegen/math_standins.cc: erf(x) = x P(x^2) / Q(x^2) on
[0, 4], P of degree 6 and Q of degree 4 in x^2 (Q(0) = 1), minimising the largest relative error
(least squares reweighted by Lawson's rule), then checks the f32 evaluation (Horner by fused
multiply-adds, +-1 from |x| >= 3.92) in ulps against math.erf rounded to f32. Needs only PyTorch
(for the linear algebra); not used by the build. Run: python3 scripts/fit_erf.py"""
import math
import struct

import torch

torch.set_default_dtype(torch.float64)
NP, NQ, X, CLAMP = 7, 5, 4.0, 3.92


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def fit():
    n = 4000
    k = torch.arange(n)
    x = (X / 2) * (1 - torch.cos(math.pi * (k + 0.5) / n))  # Chebyshev nodes on [0, X]
    x = x[x > 1e-4]
    f = torch.tensor([math.erf(v) for v in x.tolist()])
    t = x * x
    w, q_prev = torch.ones_like(x), torch.ones_like(x)
    for _ in range(60):
        # x P(t) - f (1 + sum q_j t^j) = 0, scaled to relative error by f Q_prev (Loeb).
        cols = [x * t**i for i in range(NP)] + [-f * t**j for j in range(1, NQ)]
        a = torch.stack(cols, 1) / (f * q_prev)[:, None]
        b = 1 / q_prev
        sw = torch.sqrt(w)
        sol = torch.linalg.lstsq(a * sw[:, None], (b * sw)[:, None]).solution[:, 0]
        p, q = sol[:NP], torch.cat([torch.ones(1), sol[NP:]])
        q_prev = sum(q[i] * t**i for i in range(NQ))
        err = ((x * sum(p[i] * t**i for i in range(NP)) / q_prev - f) / f).abs()
        w = w * err
        w = w / w.sum() * len(w)  # Lawson: weight where the error is largest
    print(f"largest relative error (f64): {err.max().item():.3g}")
    return p.tolist(), q.tolist()


def check_f32(p, q):
    xs = torch.linspace(0, 4.2, 400001, dtype=torch.float32)
    c = torch.clamp(xs, max=f32(CLAMP))
    t = c * c
    def fma(a, b, c):  # a * b is exact in f64; one rounding to f32 (rarely a double rounding)
        return (a.double() * b.double() + c).float()

    num = torch.full_like(t, f32(p[-1]))
    for v in reversed(p[:-1]):
        num = fma(num, t, f32(v))
    den = torch.full_like(t, f32(q[-1]))
    for v in reversed(q[:-1]):
        den = fma(den, t, f32(v))
    y = torch.where(xs >= f32(CLAMP), 1.0, c * num / den).double()
    ref = torch.tensor([math.erf(v) for v in xs.double().tolist()]).float()
    ulp = (torch.nextafter(ref, torch.full_like(ref, math.inf)) - ref).double()
    u = (y - ref.double()).abs() / ulp
    print(f"f32: largest error {u.max().item():.0f} ulp at x = {xs[u.argmax()].item():.4f}, "
          f"mean {u.mean().item():.2f} ulp")


if __name__ == "__main__":
    p, q = fit()
    print("P:", ", ".join(f"{v:.10e}" for v in p))
    print("Q:", ", ".join(f"{v:.10e}" for v in q))
    check_f32(p, q)
