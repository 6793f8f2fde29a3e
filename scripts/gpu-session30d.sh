#!/usr/bin/env bash
# Session 30, call 6: the LSTM kernels with the next step's operands loaded before the grid
# barrier (release/acquire), 128-column chunks in the gradient; BM_lstm now takes every
# parameter's gradient (as torch's peer). f32 SIMT split-K for few-tile long-K products
# (EMBER_AUTO_SPLIT_K) A/B on lstm, mlp_train_step and transformer_block; cuDNN's figure.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
EMBER_REQUIRE_CUDA=1 EMBER_TEST_DEVICE=cuda:0 timeout 300 $bin/jit_tests --gtest_brief=1 \
  --gtest_filter="LstmKernel.*" 2>&1 | grep -E "Failure|differ|trace|FAILED|PASSED|exception" | head -20
env_ab EMBER_AUTO_SPLIT_K "1 0" 'BM_lstm/fused:1' 120
slowest_kernels 'BM_lstm/fused:1' 26
torch_steps '^lstm' 90
env_ab EMBER_AUTO_SPLIT_K "1 0" 'BM_(mlp_train_step|transformer_block)/fused:1' 150
