#!/usr/bin/env bash
# Session 24, call 5 (issue 27). Bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench" bash
# scripts/gpu-bundle.sh.
# 1. The tensor-core matmul suites on cuda:0 with the swapped TF32 tile in clusters of two
#    (default) and without (EMBER_MMA_CLUSTER=0).
# 2. TF32 4096 and 8192, clusters on/off alternated twice (tuned, medians of 3), then cuBLAS
#    through PyTorch in the same call.
source scripts/gpu-bench-lib.sh
tests='MatmulMma*:*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*'
cuda_tests "$tests" 150
EMBER_MMA_CLUSTER=0 cuda_tests 'MatmulTf32*:*MatmulMmaTma*' 100
env_ab EMBER_MMA_CLUSTER "1 0 1 0" 'BM_matmul_4096_tf32/fused:1|BM_matmul_square/n:8192/type:2' 120
timeout 120 python3 bench/torch_reference.py --only 'matmul_(4096|8192)_tf32' --no-compile 2>&1 |
  grep -E '^\{' | tail -3
