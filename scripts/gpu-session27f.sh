#!/usr/bin/env bash
# Session 27, call 6: backward() starts the forward first unless the backward would recompute a
# product's operand (frontend/backward.cc), and reads held values the flushed forward computed:
# EMBER_FLUSH_BEFORE_BACKWARD 1 (default) and 0 alternated on the training steps and
# conv_block_train_nn, PyTorch's figures; the CUDA suites.
source scripts/gpu-bench-lib.sh
training_steps_ab EMBER_FLUSH_BEFORE_BACKWARD "1 0 1 0"
env_ab EMBER_FLUSH_BEFORE_BACKWARD "1 0" 'BM_conv_block_train_nn/fused:1' 100 --benchmark_min_time=0.1
torch_steps 'conv_block_train'
cuda_tests "$generic_suites:ConvGpu*:GraphReplay.*:AttentionKernel.*" 150
