#!/usr/bin/env bash
# Session 24, call 1: TF32 on Hopper's wgmma (issue 27). Bundle:
# EMBER_BUNDLE_TARGETS="jit_tests ember_bench" bash scripts/gpu-bundle.sh.
# 1. The tensor-core matmul suites on cuda:0, with the staged epilogue and without it
#    (EMBER_MMA_STAGED_EPILOGUE=0: the transposed accumulators stored directly).
# 2. TF32 and f32 matmuls at 4096 and 8192, tuned (every tile timed), then the TF32 4096 with the
#    wgmma tiles forced, then cuBLAS through PyTorch in the same call.
source scripts/gpu-bench-lib.sh
tests='MatmulMma*:*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*:CudaCompile.*'
cuda_tests "$tests" 200
EMBER_MMA_STAGED_EPILOGUE=0 cuda_tests '*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*' 150
EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench 'BM_matmul_4096_tf32/fused:1|BM_matmul_square/n:(4096|8192)/type:(0|2)' 240 \
  --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
for tile in 10 11 6; do
  echo "EMBER_MMA_TILE=$tile"
  EMBER_MMA_TILE=$tile EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench 'BM_matmul_4096_tf32/fused:1' 60 \
    --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
done
timeout 120 python3 bench/torch_reference.py --only 'matmul_(4096|8192)_(f32|tf32)' --no-compile 2>&1 |
  grep -E '^\{' | tail -6
