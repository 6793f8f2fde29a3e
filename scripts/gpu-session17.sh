#!/usr/bin/env bash
# Session 17's GPU pass (run on the GPU machine after scripts/gpu-bundle.sh, carrying gpu-bundle
# and .gl): the row and conv suites on CUDA, then the training steps with this session's
# kernels (thread-per-row reductions, tuned conv blocks) against the same binary without them
# (EMBER_THREAD_ROWS=0 EMBER_CONV_TUNE=0), alternating, each side with a kernel cache of its
# own warmed by an untimed round; then PyTorch's figures for the same workloads.
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh > /dev/null
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda
bin=gpu-bundle/bin
nvidia-smi -L | tee "$out/device.txt"
if [ -z "${EMBER_SKIP_TESTS:-}" ]; then
  EMBER_REQUIRE_CUDA=1 EMBER_TEST_DEVICE=cuda:0 EMBER_CACHE_DIR=/tmp/ember-test \
    $bin/jit_tests --gtest_brief=1 \
    --gtest_filter='AutotuneConv*:ThreadRows*:ConvGpu*:AutotuneRow*:RowTuneKey*:SplitReductions*' \
    > "$out/tests.txt" 2>&1
  echo "jit_tests (rows, conv) on cuda exit $?" | tee -a "$out/summary.txt"
  tail -3 "$out/tests.txt"
fi
filter=${EMBER_AB_FILTER:-'BM_(transformer_block|conv_block_train|mlp_train_step)/fused:1'}
run() {  # label, round, env...
  local label=$1 round=$2
  shift 2
  env "$@" EMBER_CACHE_DIR=/tmp/ember-ab-$label $bin/ember_bench --benchmark_filter="$filter" \
    --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    2>&1 | grep median | sed "s/^/$label round $round: /" | tee -a "$out/ab.txt"
}
for round in 0 1 2; do
  run before $round EMBER_THREAD_ROWS=0 EMBER_CONV_TUNE=0
  run after $round
done
if [ -z "${EMBER_SKIP_TORCH:-}" ]; then
  PYTHONUNBUFFERED=1 python3 bench/torch_reference.py \
    --only "${EMBER_TORCH_ONLY:-transformer_block|conv_block_train|mlp_train_step}" \
    > "$out/torch.json" 2> "$out/torch.err"
  echo "torch_reference exit $?" | tee -a "$out/summary.txt"
  cat "$out/torch.json"
fi
