#!/usr/bin/env bash
# Session 19's third GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the CUDA
# suites of this session's changes (tensor-core matmuls over reshaped operands, sorted scatter,
# attention reading projection heads in place and writing its log-sum-exp with the output,
# column sums in two passes, the training fuzz), then gpt_small_train_step cold and warm (wall
# and device time, what the warm-up compiled), its kernels one by one, and PyTorch's eager and
# torch.compile figures for it in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'MatmulMma*:AttentionKernel*:ScatterSorted*:SplitReductions*:ThreadRows*:FuzzTrain.*' 200
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s19c
bench 'BM_gpt_small_train_step/fused:1' 240 --benchmark_min_time=0.1
bench 'BM_gpt_small_train_step/fused:1' 100 --benchmark_min_time=0.1 --benchmark_repetitions=3
EMBER_LOG=kernels timeout 100 $bin/ember_bench --benchmark_filter='BM_gpt_small_train_step/fused:1' \
  --benchmark_min_time=0.001 --benchmark_repetitions=1 > "$out/kernels_gpt.txt" 2>&1
timeout 150 python3 bench/torch_reference.py --only 'gpt_small' 2>&1 | grep -E '^\{' | tail -4
