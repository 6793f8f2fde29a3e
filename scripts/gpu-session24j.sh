#!/usr/bin/env bash
# Session 24, call 10 (issue 27): main with the swapped TF32 tile in clusters of two (the plain
# remote arrive of call 9). The tensor-core matmul suites with clusters (the default) and
# without, TF32 4096 and 8192 with clusters on/off alternated twice, then cuBLAS.
source scripts/gpu-bench-lib.sh
cuda_tests 'MatmulMma*:*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*:SplitK*' 150
EMBER_MMA_CLUSTER=0 cuda_tests 'MatmulTf32*:*MatmulMmaTma*' 100
env_ab EMBER_MMA_CLUSTER "1 0 1 0" 'BM_matmul_square/n:(4096|8192)/type:2' 100
timeout 100 python3 bench/torch_reference.py --only 'matmul_(4096|8192)_tf32$' --no-compile 2>&1 |
  grep -E '^\{' | tail -3
