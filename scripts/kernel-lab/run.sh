#!/bin/bash
# Runs on the GPU machine: times every cubin of lab-run/ (see README.md) with `lab`, then torch's
# matmul at the same sizes as the cuBLAS reference. Each cubin's launch line is in lab-run/LAUNCH.
cd "$(dirname "$0")/../.." || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader
while read -r cubin rest; do
  [ -z "$cubin" ] && continue
  timeout 60 ./lab-run/lab "lab-run/$cubin" $rest || echo "  ($cubin: exit $?)"
done < lab-run/LAUNCH
python3 - <<'PY'
import torch
for n, dt in ((4096, torch.float32),):
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(n, n, device="cuda", dtype=dt); b = torch.randn(n, n, device="cuda", dtype=dt)
    for _ in range(3): a @ b
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    reps = max(5, int(0.5 / (2 * n**3 / (50e12 if dt == torch.float32 else 700e12))))
    s.record()
    for _ in range(reps): a @ b
    e.record(); torch.cuda.synchronize()
    ms = s.elapsed_time(e) / reps
    print(f"torch {n} {dt}: {ms:.3f} ms, {2*n**3/ms/1e9:.1f} TFLOP/s ({reps} launches)")
PY
