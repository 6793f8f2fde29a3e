#!/usr/bin/env bash
# Session 27, call 4: (a) the transposed convolution's padding as the convolution's own (no
# padded copy of the gradient) and 2 weight-gradient parts, now defaults; (b) the training steps
# started on the device after their forward pass (EMBER_BENCH_EARLY_FLUSH=1, ember::flush) while
# the host records the backward, alternated with the single flush; PyTorch's figures; the conv
# and training suites on cuda:0.
source scripts/gpu-bench-lib.sh
env_ab EMBER_BENCH_EARLY_FLUSH "0 1 0 1" 'BM_(conv_block_train|conv_block_train_nn|mlp_train_step)/fused:1' 240 \
  --benchmark_min_time=0.1
torch_steps 'conv_block_train|mlp_train_step'
slowest_kernels 'BM_conv_block_train/fused:1' 51
flush_phases conv_block_train
cuda_tests "$generic_suites:ConvGpu*:ConvMma*:ConvSimt*:GraphReplay.*" 200
