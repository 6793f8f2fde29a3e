#!/usr/bin/env bash
# Session 24, call 8 (issue 27): main after the review fixes. The tensor-core matmul suites on
# cuda:0 (the swapped-tile test now wraps every ring on all three 8-warp tiles), then TF32 4096
# and 8192 tuned with the TF32 tuning tolerance (medians of 3).
source scripts/gpu-bench-lib.sh
cuda_tests 'MatmulMma*:*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*:SplitK*' 200
EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench 'BM_matmul_square/n:(4096|8192)/type:(2|3)' 150 \
  --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true |
  cut -c1-150
