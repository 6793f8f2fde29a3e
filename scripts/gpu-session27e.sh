#!/usr/bin/env bash
# Session 27, call 5: backward() starting the forward pass on CUDA first
# (EMBER_FLUSH_BEFORE_BACKWARD, 1 = the new default, 0 = one flush as before), alternated, on the
# training steps of issues 19, 21 and 27 and conv_block_train_nn, with PyTorch's figures before
# and after; then the CUDA suites (training fuzzers in both flush modes, reuse, conv, attention,
# graph replay).
source scripts/gpu-bench-lib.sh
torch_steps 'conv_block_train'
training_steps_ab EMBER_FLUSH_BEFORE_BACKWARD "1 0 1 0 1"
env_ab EMBER_FLUSH_BEFORE_BACKWARD "1 0 1" 'BM_conv_block_train_nn/fused:1' 100 --benchmark_min_time=0.1
torch_steps 'conv_block_train'
cuda_tests "$generic_suites:ConvGpu*:ConvMma*:ConvSimt*:GraphReplay.*:AttentionKernel.*" 250
