#!/usr/bin/env bash
# Session 25, call 11 (issue 19): the review fixes (a tile admitted only within the device's
# shared memory, stored winners re-checked, operands stored only for shapes a tile takes, the f32
# tile rule in one place). The conv suites, then conv2d_resnet and conv_block_train once.
source scripts/gpu-bench-lib.sh
cuda_tests 'ConvSimt*:ConvMma*:ConvGpu*:CudaCompile.Conv*' 200
EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench 'BM_(conv2d_resnet_(bf16|f32)|conv_block_train)/fused:1' \
  100 --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true |
  cut -c1-150
