#!/usr/bin/env bash
# Session 25, call 2 (issue 19): the conv tile's A gather stored as 16-byte chunks of K-major rows
# (was 2-byte stores into an M-major stage) and two more 64 x 64 tiles. The conv suites, then
# every tile forced on conv2d_resnet bf16 and TF32 forward, the heuristic/tuned choice on the
# training steps, and PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'ConvMma*:ConvGpu*:CudaCompile.Conv*' 200
env_ab EMBER_CONV_MMA "1 2 3 4 5 6 7" 'BM_conv2d_resnet_(bf16|tf32)/fused:1' 100
env_ab EMBER_CONV_MMA "-1 0" 'BM_conv2d_resnet_(bf16|tf32)(_train)?/fused:1' 150
timeout 150 python3 bench/torch_reference.py --only 'conv2d_resnet_(bf16|tf32)' 2>&1 |
  grep -E '^\{' | tail -8
