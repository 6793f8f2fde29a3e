#!/usr/bin/env bash
# Runs on the GPU machine (see scripts/gpu-bundle.sh): the Vulkan test suites on the NVIDIA
# driver, then the benchmark workloads, then PyTorch's figures for the same workloads.
# Everything is written to $OUT (or ./gpu-out).
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh
export EMBER_DEVICE=${EMBER_DEVICE:-vulkan} EMBER_BENCH_GPU=1 EMBER_CACHE_DIR=/tmp/ember-cache
nvidia-smi -L | tee "$out/device.txt"
bin=gpu-bundle/bin
# At most 8 files come back from the device machine: logs are grouped.
for dev in vulkan cuda; do
  echo "== $dev" >> "$out/examples.txt"
  EMBER_DEVICE=$dev $bin/tensor_basics >> "$out/examples.txt" 2>&1
  echo "tensor_basics on $dev exit $?" | tee -a "$out/summary.txt"
done
# The training example: one epoch per device (accuracy, time per epoch, kernels per step).
export EMBER_FASHION_MNIST_DIR=$PWD/gpu-bundle/data
for dev in ${EMBER_TRAIN_DEVICES:-cuda vulkan}; do
  echo "== $dev" >> "$out/examples.txt"
  EMBER_DEVICE=$dev $bin/fashion_mnist ${EMBER_TRAIN_ARGS:-} >> "$out/examples.txt" 2>&1
  echo "fashion_mnist on $dev exit $?" | tee -a "$out/summary.txt"
  grep -E "^epoch [0-9]+:|per step" "$out/examples.txt" | tail -2
done
for dev in ${EMBER_GPU_TEST_DEVICES:-vulkan:0 cuda:0}; do
  echo "== $dev" >> "$out/jit_tests.txt"
  # CUDA-only tests must run (not skip) in the CUDA pass.
  # (Set only then: set at all, even empty, it makes CUDA-only tests fail on other devices.)
  req_cuda=; [ "${dev%%:*}" = cuda ] && req_cuda=EMBER_REQUIRE_CUDA=1
  env $req_cuda EMBER_TEST_DEVICE=$dev EMBER_REQUIRE_VULKAN=1 $bin/jit_tests --gtest_brief=1 \
    ${EMBER_GPU_TEST_FILTER:+--gtest_filter=$EMBER_GPU_TEST_FILTER} >> "$out/jit_tests.txt" 2>&1
  echo "jit_tests on $dev exit $?" | tee -a "$out/summary.txt"
  tail -3 "$out/jit_tests.txt"
done
# The square-matmul sweep is scripts/gpu-autotune.sh's: left out here to stay inside the
# device call's time limit.
for dev in ${EMBER_BENCH_DEVICES:-vulkan cuda}; do
  EMBER_DEVICE=$dev $bin/ember_bench --benchmark_min_time=${EMBER_BENCH_MIN_TIME:-0.2} \
    --benchmark_filter=${EMBER_BENCH_FILTER:--matmul_square} \
    --benchmark_out="$out/ember_bench_$dev.json" --benchmark_out_format=json
done
if [ -z "${EMBER_SKIP_TORCH:-}" ] && [ -f bench/torch_reference.py ] && command -v python3 > /dev/null; then
  PYTHONUNBUFFERED=1 python3 bench/torch_reference.py ${EMBER_TORCH_ONLY:+--only "$EMBER_TORCH_ONLY"} > "$out/torch.json" 2> "$out/torch.err"
  echo "torch_reference exit $?" | tee -a "$out/summary.txt"
  cat "$out/torch.json"
fi
python3 bench/report.py "$out"/ember_bench_*.json "$out/torch.json" | tee -a "$out/summary.txt"
