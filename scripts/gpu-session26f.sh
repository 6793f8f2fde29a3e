#!/usr/bin/env bash
# Session 26, call 6: the final code (concurrent graphs, one kernel launched ahead of the graph).
# The device-generic suites (training fuzzers with held outputs, buffer and in-place reuse, edge
# cases), the conv suites and graph replay on cuda:0; then the training steps once and PyTorch's.
source scripts/gpu-bench-lib.sh
cuda_tests "$generic_suites:ConvGpu*:ConvMma*:ConvSimt*:GraphReplay.*:DeviceTiming.*" 280
EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench 'BM_(conv_block_train|mlp_train_step|transformer_block)/fused:1' \
  120 --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true |
  cut -c1-150
torch_steps 'conv_block_train|mlp_train_step|transformer_block'
