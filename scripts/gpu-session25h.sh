#!/usr/bin/env bash
# Session 25, call 8 (issue 19): the split-k f32 tile (four thread groups share a 64 x 64 block) for
# conv_block_train's weight gradients (160 blocks of 128 x 64, K = 3136). conv_block_train and
# conv2d_resnet f32 with and without the tiles alternated, each run's slowest kernels, and
# PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'ConvSimt*:ConvMma*:ConvGpu*' 150
env_ab EMBER_CONV_MMA "-1 0 -1 0" 'BM_(conv2d_resnet_f32|conv_block_train)/fused:1' 150
for v in -1 0; do slowest_kernels 'BM_conv_block_train/fused:1' 49 EMBER_CONV_MMA=$v; done
torch_steps 'conv2d_resnet_f32$|conv_block_train' 200
