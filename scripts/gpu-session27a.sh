#!/usr/bin/env bash
# Session 27, call 1: the weight gradient's output rows in parts (EMBER_CONV_WGRAD_PARTS, 1 =
# before, 2 and 4 parts; ir/conv_compose.h) on conv_block_train, alternated; the slowest kernels
# of a step with 4 parts and with none; PyTorch's figures; the conv and training suites on cuda:0.
source scripts/gpu-bench-lib.sh
env_ab EMBER_CONV_WGRAD_PARTS "1 4 2 1 4 2" 'BM_conv_block_train(_nn)?/fused:1' 200 \
  --benchmark_min_time=0.1
slowest_kernels 'BM_conv_block_train/fused:1' 56 EMBER_CONV_WGRAD_PARTS=4
slowest_kernels 'BM_conv_block_train/fused:1' 50 EMBER_CONV_WGRAD_PARTS=1
torch_steps 'conv_block_train'
cuda_tests 'ConvGpu*:ConvMma*:FuzzTrain*' 150
