#!/bin/bash
# Runs on the GPU machine, carrying lab-run (see attention_lab.cu): checks and times the flash
# attention kernel at the `attention` workload's shapes and a few edge shapes, then torch's SDPA
# (flash backend) at the same shapes, in the same call.
cd "$(dirname "$0")/../.." || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
lab=./lab-run/attention_lab
status=0
for args in "bf16 64 8 16 16 1024 1024 0" "bf16 64 8 16 16 1024 1024 1" \
            "bf16 64 8 16 16 4096 4096 0" "bf16 64 8 16 16 4096 4096 1" \
            "f16 64 8 16 16 1024 1024 0" "bf16 128 8 16 16 1024 1024 0" "bf16 128 8 16 16 1024 1024 1" \
            "bf16 64 2 8 2 333 517 0" "bf16 64 2 8 2 517 333 1" "bf16 64 1 1 1 1 1 0" "bf16 128 3 4 4 77 77 1" \
            "bf16 64 1 2 1 5 200 1" ${EXTRA_ARGS:-}; do
  timeout 60 $lab $args || status=1
done
python3 - <<'PY'
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
for (seq, d, causal) in ((1024, 64, False), (1024, 64, True), (4096, 64, False), (4096, 64, True), (1024, 128, False), (1024, 128, True)):
    q, k, v = (torch.rand(8, 16, seq, d, device="cuda", dtype=torch.bfloat16) * 4 - 2 for _ in range(3))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        f = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        for _ in range(3): f()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); f(); e.record(); torch.cuda.synchronize()
        reps = max(5, int(300 / max(s.elapsed_time(e), 1e-3)))
        s.record()
        for _ in range(reps): f()
        e.record(); torch.cuda.synchronize()
        ms = s.elapsed_time(e) / reps
    fl = 4 * 8 * 16 * seq * seq * d * (0.5 if causal else 1)
    print(f"torch flash bf16 D={d} seq={seq} causal={int(causal)}: {ms:.4f} ms, {fl / ms / 1e9:.1f} TFLOP/s")
PY
exit $status
