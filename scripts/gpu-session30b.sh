#!/usr/bin/env bash
# Session 30, call 3: the LSTM recurrence with workgroups that own blocks of batch rows and
# stage their rows through cp.async (lstm.cuh): its tests on CUDA with their failure messages,
# BM_lstm and its slowest kernels, cuDNN's figure.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
EMBER_REQUIRE_CUDA=1 EMBER_TEST_DEVICE=cuda:0 timeout 300 $bin/jit_tests --gtest_brief=1 \
  --gtest_filter="LstmKernel.*" 2>&1 | grep -v "^\[ *RUN\|^\[ *OK" | head -40
env_ab EMBER_FUSED_LSTM "1" 'BM_lstm/fused:1' 150
slowest_kernels 'BM_lstm/fused:1' 18
torch_steps '^lstm' 90
