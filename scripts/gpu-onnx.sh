#!/usr/bin/env bash
# The ONNX import on the GPU machine (after EMBER_BUNDLE_TARGETS="onnx_tests ember_onnx_bench"
# bash scripts/gpu-bundle.sh, carrying gpu-bundle and .gl): the PyTorch fixtures' outputs,
# gradients and fine-tuning on CUDA and Vulkan; then, where the machine's Python has torchvision
# and onnx, the full-width ResNet-18 exported there and timed on CUDA (f32 and bf16, batch 1 and
# 32) with PyTorch eager on the same GPU in the same call. ONNX Runtime's CUDA provider is not
# installed there.
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh > /dev/null
bin=gpu-bundle/bin
nvidia-smi -L | tee "$out/device.txt"
# The tests read the fixtures at the path they were built with.
fixtures=$(strings $bin/onnx_tests | grep -m1 '/tests/import/onnx/fixtures$')
if [ -n "$fixtures" ] && [ ! -e "$fixtures" ]; then
  mkdir -p "$(dirname "$fixtures")" && ln -s "$PWD/tests/import/onnx/fixtures" "$fixtures"
fi
for dev in cuda:0 vulkan:0; do
  EMBER_ONNX_TEST_DEVICE=$dev EMBER_CACHE_DIR=/tmp/ember-onnx-$dev $bin/onnx_tests \
    --gtest_brief=1 --gtest_filter='*PyTorchModels*:*FineTune*' > "$out/tests-$dev.txt" 2>&1
  echo "onnx_tests (PyTorch fixtures) on $dev exit $?" | tee -a "$out/summary.txt"
  grep -E "FAILED|PASSED|tests ran" "$out/tests-$dev.txt" | head -8
done
if python3 -c 'import torchvision, onnx' 2> /dev/null; then
  python3 scripts/make_onnx_fixtures.py /tmp/onnx-fixtures --full-resnet18 /tmp/resnet18.onnx \
    > "$out/export.txt" 2>&1 || echo "export failed" | tee -a "$out/summary.txt"
else
  echo "no torchvision or onnx in this Python: ResNet-18 not exported" | tee -a "$out/summary.txt"
fi
if [ -f /tmp/resnet18.onnx ]; then
  EMBER_ONNX_BENCH_MODEL=/tmp/resnet18.onnx EMBER_DEVICE=cuda EMBER_BENCH_GPU=1 \
    EMBER_CACHE_DIR=/tmp/ember-onnx-bench timeout 300 $bin/ember_onnx_bench \
    --benchmark_filter=resnet18 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    2>&1 | grep -E "median|rror" | tee "$out/bench.txt"
  python3 - <<'PY' 2>&1 | tee "$out/torch.txt"
import statistics, time, torch, torchvision
net = torchvision.models.resnet18(weights=None).eval().cuda()
for dt in (torch.float32, torch.bfloat16):
    n = net.to(dt)
    for batch in (1, 32):
        x = torch.randn(batch, 3, 224, 224, device="cuda", dtype=dt)
        with torch.no_grad():
            for _ in range(5): n(x).float().cpu()
            ts = []
            for _ in range(30):
                t = time.perf_counter(); n(x).float().cpu(); ts.append((time.perf_counter() - t) * 1e3)
        print(f"torch eager {dt} batch {batch}: {statistics.median(ts):.3f} ms (output read back)")
PY
fi
