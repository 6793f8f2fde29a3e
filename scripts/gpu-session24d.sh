#!/usr/bin/env bash
# Session 24, call 4 (issue 27). Bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench" bash
# scripts/gpu-bundle.sh.
# 1. The tensor-core matmul suites on cuda:0 with the new multi-tile TF32 test, persistent and not.
# 2. The tiles' order: block rows per group (EMBER_MMA_GROUP) 8, 4, 16, 8 for TF32 4096 and 8192
#    and bf16 8192 (tuned, medians of 3), then cuBLAS through PyTorch.
source scripts/gpu-bench-lib.sh
tests='MatmulMma*:*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*'
cuda_tests "$tests" 150
EMBER_MMA_PERSISTENT=0 cuda_tests 'MatmulTf32*' 100
env_ab EMBER_MMA_GROUP "8 4 16 8" 'BM_matmul_4096_tf32/fused:1|BM_matmul_square/n:8192/type:(1|2)' 150
timeout 150 python3 bench/torch_reference.py --only 'matmul_(4096_tf32|8192_tf32|8192_bf16)' \
  --no-compile 2>&1 | grep -E '^\{' | tail -4
