#!/usr/bin/env bash
# Session 30, call 9 (the session's last code): split-K unasked for f32 SIMT weight gradients
# only; its tests and the LSTM's on CUDA, then BM_lstm against cuDNN in the same call.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
EMBER_REQUIRE_CUDA=1 EMBER_TEST_DEVICE=cuda:0 timeout 150 $bin/jit_tests --gtest_brief=1 \
  --gtest_filter="SplitK*:LstmKernel.*" 2>&1 | grep -E "Failure|differ|Expected|Which|FAILED|PASSED|exception" | head -20
env_ab EMBER_AUTO_SPLIT_K "1" 'BM_lstm/fused:1' 90
torch_steps '^lstm' 60
