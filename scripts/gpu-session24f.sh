#!/usr/bin/env bash
# Session 24, call 6 (issue 27), run from branch wip/tf32-persistent (its switches are not on main). Bundle:
# EMBER_BUNDLE_TARGETS="jit_tests ember_bench" bash scripts/gpu-bundle.sh.
# 1. The tensor-core matmul suites on cuda:0 with the swapped TF32 tile in clusters of two and
#    persistent (the defaults), then each switched off (EMBER_MMA_CLUSTER, EMBER_MMA_PERSISTENT).
# 2. TF32 4096 and 8192 in the four combinations, twice (tuned, medians of 3), then cuBLAS.
source scripts/gpu-bench-lib.sh
cuda_tests 'MatmulMma*:*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*' 150
for cp in "1 0" "0 1" "0 0"; do
  set -- $cp
  echo "EMBER_MMA_CLUSTER=$1 EMBER_MMA_PERSISTENT=$2"
  EMBER_MMA_CLUSTER=$1 EMBER_MMA_PERSISTENT=$2 cuda_tests 'MatmulTf32*:*MatmulMmaTma*' 100
done
for round in 1 2; do
  for cp in "1 1" "1 0" "0 1" "0 0"; do
    set -- $cp
    echo "EMBER_MMA_CLUSTER=$1 EMBER_MMA_PERSISTENT=$2"
    EMBER_MMA_CLUSTER=$1 EMBER_MMA_PERSISTENT=$2 EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda \
      bench 'BM_matmul_4096_tf32/fused:1|BM_matmul_square/n:8192/type:2' 120 \
      --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true |
      cut -c1-110
  done
done
timeout 120 python3 bench/torch_reference.py --only 'matmul_(4096|8192)_tf32' --no-compile 2>&1 |
  grep -E '^\{' | tail -3
