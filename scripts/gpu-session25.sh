#!/usr/bin/env bash
# Session 25, call 1 (issue 19): the conv family's tensor-core tile (kernels/conv/conv_mma.cuh).
# The CUDA suites it touches, then conv2d_resnet with the tile (the heuristic or tuned tile) and
# without it (EMBER_CONV_MMA=0, the SIMT baseline) alternated, each tile forced on the bf16
# forward, and PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'ConvMma*:ConvGpu*:MatmulMma*:MatmulTf32*:CudaCompile.Conv*' 240
env_ab EMBER_CONV_MMA "-1 0 -1 0" 'BM_conv2d_resnet_(bf16|tf32)(_train)?/fused:1' 150
env_ab EMBER_CONV_MMA "1 2 3 4 5" 'BM_conv2d_resnet_bf16/fused:1' 100
timeout 150 python3 bench/torch_reference.py --only 'conv2d_resnet' 2>&1 | grep -E '^\{' | tail -12
