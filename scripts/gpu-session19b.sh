#!/usr/bin/env bash
# Session 19's second GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the
# suites this session's changes touch on CUDA (tensor-core matmuls over reshaped operands, the
# sorted scatter, attention with the log-sum-exp beside the output, the training fuzz), then
# gpt_small_train_step from an empty cache and warm, its kernels one by one, and attention's
# forward+backward.
source scripts/gpu-bench-lib.sh
cuda_tests 'MatmulMma*:AttentionKernel*:ScatterSorted*:FuzzTrain.*' 200
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s19
bench 'BM_gpt_small_train_step/fused:1' 200 --benchmark_min_time=0.1
bench 'BM_gpt_small_train_step/fused:1' 100 --benchmark_min_time=0.1 --benchmark_repetitions=3
EMBER_LOG=kernels timeout 100 $bin/ember_bench --benchmark_filter='BM_gpt_small_train_step/fused:1' \
  --benchmark_min_time=0.001 --benchmark_repetitions=1 > "$out/kernels_gpt.txt" 2>&1
bench 'BM_attention_s(1024|4096)(_causal)?_fwd_bwd/' 200 --benchmark_min_time=0.1 \
  --benchmark_repetitions=3
