#!/usr/bin/env bash
# Session 18's GPU pass (after scripts/gpu-bundle.sh with EMBER_BUNDLE_TARGETS="jit_tests
# ember_bench", carrying gpu-bundle and .gl): the attention suites on CUDA and Vulkan, then the
# attention workloads with the fused kernel against the same binary with the composite
# (EMBER_FUSED_ATTENTION=0), alternating, each side with a kernel cache of its own (round 0 warms
# it; each run is cut after 150 s); then PyTorch's flash backend at the same shapes. The session's
# figures came from EMBER_SKIP_TESTS=1 EMBER_AB_FILTER='BM_attention_s(1024|4096)(_causal)?_fwd/'
# (the forward and backward workloads run the composite, whose 4096 case took longer than 150 s
# from a cold cache).
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh > /dev/null
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda
bin=gpu-bundle/bin
nvidia-smi -L | tee "$out/device.txt"
if [ -z "${EMBER_SKIP_TESTS:-}" ]; then
  EMBER_REQUIRE_CUDA=1 EMBER_REQUIRE_VULKAN=1 EMBER_TEST_DEVICE=cuda:0 \
    EMBER_CACHE_DIR=/tmp/ember-test $bin/jit_tests --gtest_brief=1 \
    --gtest_filter='AttentionKernel*:CudaCompile*:MatmulMma*' > "$out/tests-cuda.txt" 2>&1
  echo "jit_tests (attention) on cuda exit $?" | tee -a "$out/summary.txt"
  grep -E "attention on|FAILED|PASSED" "$out/tests-cuda.txt" | head -20
  EMBER_REQUIRE_VULKAN=1 EMBER_TEST_DEVICE=vulkan:0 EMBER_CACHE_DIR=/tmp/ember-test-vk \
    $bin/jit_tests --gtest_brief=1 --gtest_filter='AttentionKernel*' \
    > "$out/tests-vulkan.txt" 2>&1
  echo "jit_tests (attention) on vulkan exit $?" | tee -a "$out/summary.txt"
  grep -E "FAILED|PASSED" "$out/tests-vulkan.txt" | head -10
fi
filter=${EMBER_AB_FILTER:-'BM_attention'}
run() {  # label, round, env...
  local label=$1 round=$2
  shift 2
  env "$@" EMBER_CACHE_DIR=/tmp/ember-ab-$label $bin/ember_bench --benchmark_filter="$filter" \
    --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    2>&1 | grep median | sed "s/^/$label round $round: /" | tee -a "$out/ab.txt"
}
for round in 0 1 2; do
  run composite $round EMBER_FUSED_ATTENTION=0
  run fused $round
done
if [ -z "${EMBER_SKIP_TORCH:-}" ]; then
  PYTHONUNBUFFERED=1 python3 bench/torch_reference.py --no-compile \
    --only "${EMBER_TORCH_ONLY:-attention}" > "$out/torch.json" 2> "$out/torch.err"
  echo "torch_reference exit $?" | tee -a "$out/summary.txt"
  grep -E '"name"|median_ms' "$out/torch.err" | head -20
fi
