#!/usr/bin/env bash
# Session 19's first GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the
# sequence-model steps of issue 21 never measured on a GPU. gpt_small_train_step from an empty
# kernel cache and again warm, transformer_block, then PyTorch's eager and torch.compile figures
# for the same steps in the same call.
source scripts/gpu-bench-lib.sh
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s19
bench 'BM_gpt_small_train_step/fused:1' 330 --benchmark_min_time=0.1
bench 'BM_gpt_small_train_step/fused:1' 120 --benchmark_min_time=0.1 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true
bench 'BM_transformer_block/fused:1' 100 --benchmark_min_time=0.1 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true
timeout 150 python3 bench/torch_reference.py --only 'gpt_small|transformer_block' 2>&1 |
  grep -E '^\{' | tail -8
