#!/usr/bin/env bash
# Session 25, call 6 (issue 19): the exact f32 tile only for problems of at least 264 of its
# tiles (conv_block_train's weight gradients back on the SIMT blocks). conv_block_train and
# conv2d_resnet f32 with and without the tiles alternated, each run's slowest kernels, and
# PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'ConvSimt*:ConvMma*' 150
env_ab EMBER_CONV_MMA "-1 0 -1 0" 'BM_(conv2d_resnet_f32|conv_block_train)/fused:1' 150
for v in -1 0; do slowest_kernels 'BM_conv_block_train/fused:1' 49 EMBER_CONV_MMA=$v; done
torch_steps 'conv2d_resnet_f32$|conv_block_train' 200
