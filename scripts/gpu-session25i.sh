#!/usr/bin/env bash
# Session 25, call 9 (issue 19): f32 operands the tiles cannot read stored for them (the input
# gradient's convolution on the f32 tile), then issue 19's figures. conv_block_train and
# conv2d_resnet f32 with and without the tiles alternated, each run's slowest kernels, and
# PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'ConvSimt*:ConvMma*:ConvGpu*:Fuzz*' 200
env_ab EMBER_CONV_MMA "-1 0 -1 0" \
  'BM_(conv2d_resnet_(f32|bf16|tf32)|conv2d_depthwise|conv_block_train)/fused:1' 150
for v in -1 0; do slowest_kernels 'BM_conv_block_train/fused:1' 50 EMBER_CONV_MMA=$v; done
timeout 200 python3 bench/torch_reference.py --only 'conv2d_resnet_(f32|bf16|tf32)$|conv2d_depthwise|conv_block_train' 2>&1 |
  grep -E '^\{"name'
