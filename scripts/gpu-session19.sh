#!/usr/bin/env bash
# Session 19's first GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the
# sequence-model steps of issue 21 never measured on a GPU. gpt_small_train_step from an empty
# kernel cache and again warm, transformer_block, then PyTorch's eager and torch.compile figures
# for the same steps in the same call.
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh > /dev/null
bin=gpu-bundle/bin
nvidia-smi -L
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s19
bench() {  # filter, timeout, extra args
  local start=$(date +%s.%N)
  timeout "$2" $bin/ember_bench --benchmark_filter="$1" "${@:3}" 2>&1 |
    grep -E "^BM_|error|Error" | head -8
  echo "  ($1: $(echo "$(date +%s.%N) - $start" | bc) s whole process)"
}
bench 'BM_gpt_small_train_step/fused:1' 330 --benchmark_min_time=0.1
bench 'BM_gpt_small_train_step/fused:1' 120 --benchmark_min_time=0.1 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true
bench 'BM_transformer_block/fused:1' 100 --benchmark_min_time=0.1 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true
timeout 150 python3 bench/torch_reference.py --only 'gpt_small|transformer_block' 2>&1 |
  grep -E '^\{' | tail -8
