#!/usr/bin/env bash
# Session 25, call 4 (issue 19): the conv tile with a table of k offsets (the gather two adds, two compares and a load per element). The
# conv suites, the tiles forced on conv2d_resnet bf16 and TF32 forward, the tuned choice with
# and without the tile, and PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'ConvMma*:ConvGpu*' 200
env_ab EMBER_CONV_MMA "1 2 5 6 7 8 9" 'BM_conv2d_resnet_(bf16|tf32)/fused:1' 100
env_ab EMBER_CONV_MMA "-1 0" 'BM_conv2d_resnet_(bf16|tf32)(_train)?/fused:1' 150
timeout 150 python3 bench/torch_reference.py --only 'conv2d_resnet_(bf16|tf32)' 2>&1 |
  grep -E '^\{"name'
