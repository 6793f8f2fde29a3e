#!/usr/bin/env bash
# Session 24, call 7 (issue 27), main with the TF32 wgmma tiles. Bundle:
# EMBER_BUNDLE_TARGETS="jit_tests ember_bench" bash scripts/gpu-bundle.sh.
# 1. The CUDA suites the matmul changes touch, fuzzers included.
# 2. Every matmul of the criterion (f32, bf16, TF32, TF32 with a K-major B) at 4096 and
#    8192, tuned, medians of 3, then cuBLAS through PyTorch in the same call.
# 3. The tiles' order for bf16: EMBER_MMA_GROUP=16 against the default 8, alternated twice, on
#    the 8192 square and gpt_small's products.
source scripts/gpu-bench-lib.sh
cuda_tests 'Fuzz*:FuzzTrain*:AttentionKernel*:MatmulMma*:*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*:SplitK*:ConvGpu*' 300
EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench 'BM_matmul_square/n:(4096|8192)/type:[0-3]' 300 \
  --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true |
  cut -c1-150
timeout 150 python3 bench/torch_reference.py --only 'matmul_(4096|8192)_' --no-compile 2>&1 |
  grep -E '^\{' | tail -9
env_ab EMBER_MMA_GROUP "16 8 16 8" 'BM_matmul_square/n:8192/type:1|BM_matmul_gpt' 120 --benchmark_min_time=0.1
