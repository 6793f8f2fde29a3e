#!/usr/bin/env bash
# Session 30, call 7 (the session's last code): the LSTM kernel tests (a bidirectional pair
# replayed as a CUDA graph included), the nn suite's recurrent layers on CUDA (PyTorch fixtures,
# equations, gradient checks), the device-generic fuzzers and matmul blocks (split-K for f32
# SIMT products changed), then BM_lstm against cuDNN in the same call.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
EMBER_REQUIRE_CUDA=1 EMBER_TEST_DEVICE=cuda:0 timeout 240 $bin/jit_tests --gtest_brief=1 \
  --gtest_filter="LstmKernel.*" 2>&1 | grep -E "Failure|differ|trace|FAILED|PASSED|exception" | head -20
EMBER_NN_TEST_DEVICE=cuda:0 timeout 200 $bin/nn_tests --gtest_brief=1 \
  --gtest_filter='*Lstm*:*Rnn*:*Gru*:SeqFixture.*:Recurrent*' 2>&1 |
  grep -E "Failure|differ|FAILED|PASSED|exception|tests ran" | head -20
cuda_tests "$generic_suites:FlushReplay.*:*MatmulBlocks.*" 200
env_ab EMBER_FUSED_LSTM "1" 'BM_lstm/fused:1' 100
torch_steps '^lstm' 90
