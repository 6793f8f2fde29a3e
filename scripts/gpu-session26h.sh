#!/usr/bin/env bash
# Session 26, call 8: after the review mends (range lookups, dependencies shared by the patch
# test and the build, the lead kernel launched once every call is made). The suites of call 6
# on cuda:0, then the training steps once.
source scripts/gpu-bench-lib.sh
cuda_tests "$generic_suites:ConvGpu*:ConvMma*:ConvSimt*:GraphReplay.*:DeviceTiming.*" 240
EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench 'BM_(conv_block_train|conv_block_train_nn|mlp_train_step)/fused:1' \
  60 --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true |
  cut -c1-150
