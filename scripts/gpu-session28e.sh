#!/usr/bin/env bash
# Session 28, call 5 (main at the session's last code): the training steps with the forward
# started first (default) and in one flush, alternated, PyTorch's figures before and after;
# conv_block_train_nn likewise; where a steady conv_block_train step's host time goes; the
# training fuzzers, reuse tests and autodiff suites on CUDA.
source scripts/gpu-bench-lib.sh
torch_steps 'conv_block_train|mlp_train_step'
training_steps_ab EMBER_FLUSH_BEFORE_BACKWARD "1 0 1 0"
env_ab EMBER_FLUSH_BEFORE_BACKWARD "1 0 1" 'BM_conv_block_train_nn/fused:1' 100 --benchmark_min_time=0.1
flush_phases conv_block_train
cuda_tests "FuzzTrain*:BufferReuse.*:InPlaceReuse.*:Lazy.*:Autodiff.*:ConvGpu*" 200
