#!/usr/bin/env bash
# Session 24, call 10 (issue 27): main with the swapped TF32 tile in clusters of two (the plain
# remote arrive of call 9). The tensor-core matmul suites with clusters (the default) and
# without, TF32 4096 and 8192 with clusters on/off alternated twice, then cuBLAS.
source scripts/gpu-bench-lib.sh
cuda_tests 'MatmulMma*:*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*:SplitK*' 150
EMBER_MMA_CLUSTER=0 cuda_tests 'MatmulTf32*:*MatmulMmaTma*' 100
for c in 1 0 1 0; do
  echo "EMBER_MMA_CLUSTER=$c"
  EMBER_MMA_CLUSTER=$c EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda \
    bench 'BM_matmul_square/n:(4096|8192)/type:2' 100 --benchmark_min_time=0.2 \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true | cut -c1-100
done
timeout 100 python3 bench/torch_reference.py --only 'matmul_(4096|8192)_tf32$' --no-compile 2>&1 |
  grep -E '^\{' | tail -3
