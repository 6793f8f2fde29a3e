#!/usr/bin/env bash
# Session 30, call 1: the fused LSTM recurrence (kernels/rnn) on CUDA against the CPU reference,
# BM_lstm with it and with the composite (EMBER_FUSED_LSTM=0 is too slow to finish: not run),
# its slowest kernels, cuDNN's figure in the same call; then last session's untested commits
# (the vector tiles' fallback block) through the fuzzers.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
cuda_tests "LstmKernel.*" 300
env_ab EMBER_FUSED_LSTM "1" 'BM_lstm/fused:1' 150
torch_steps '^lstm' 90
slowest_kernels 'BM_lstm/fused:1' 40
cuda_tests "FuzzTrain*:*MatmulBlocks.*:FlushReplay.*" 150
