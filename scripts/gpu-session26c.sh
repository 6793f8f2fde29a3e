#!/usr/bin/env bash
# Session 26, call 3: a product's or convolution's weight gradient recorded before its input
# gradient (EMBER_GRAD_ORDER=weights_first), so that the input gradient fills the weight
# gradient's last wave in the concurrent graph; alternated with the usual order (x). Then where a
# conv_block_train step's host time goes (EMBER_LOG=flush), the training fuzzers in the new
# order, and PyTorch's figures.
source scripts/gpu-bench-lib.sh
steps='BM_(conv_block_train|mlp_train_step|transformer_block)/fused:1'
env_ab EMBER_GRAD_ORDER "x weights_first x weights_first" "$steps" 240 --benchmark_min_time=0.1
EMBER_LOG=flush EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 60 $bin/ember_bench \
  --benchmark_filter='BM_conv_block_train/fused:1' --benchmark_min_time=0.001 \
  --benchmark_repetitions=1 2>&1 | grep "^ember" | tail -8
EMBER_GRAD_ORDER=weights_first cuda_tests 'Fuzz*:FuzzTrain*:ConvMma.Training*:ConvSimt*' 120
torch_steps 'conv_block_train|mlp_train_step|transformer_block'
