#!/usr/bin/env bash
# Session 30, call 5: the LSTM tests on CUDA (every failure line), then the fuzzers that
# last session's final commits were not run through.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
EMBER_REQUIRE_CUDA=1 EMBER_TEST_DEVICE=cuda:0 timeout 300 $bin/jit_tests --gtest_brief=1 \
  --gtest_filter="LstmKernel.*" 2>&1 | grep -E "Failure|differ|trace|lstm_kernel_test|FAILED|PASSED|exception" | head -40
cuda_tests "FuzzTrain*:*MatmulBlocks.*:FlushReplay.*" 200
