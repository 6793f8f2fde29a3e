#!/usr/bin/env bash
# Session 26, call 1: CUDA graphs whose kernels wait only for the kernels they conflict with
# (runtime/cuda/graph_order.h). The device-generic suites (training fuzzers with held outputs,
# buffer reuse, in-place reuse) and the conv suites on cuda:0, then the training steps with
# EMBER_CUDA_CONCURRENT=0 (a chain, the old graphs) and 1 alternated, then PyTorch's figures.
source scripts/gpu-bench-lib.sh
cuda_tests 'Fuzz*:FuzzTrain*:BufferReuse.*:InPlaceReuse.*:Bindings.*:GradVulkan*:ClosedForms.*:JitEdgeCases.*:SplitReductions.*:RowTotals.*:ConvGpu*:ConvMma*:ConvSimt*' 240
steps='BM_(conv_block_train|mlp_train_step|transformer_block)/fused:1'
env_ab EMBER_CUDA_CONCURRENT "0 1 0 1" "$steps" 200 --benchmark_min_time=0.1
timeout 150 python3 bench/torch_reference.py \
  --only 'conv_block_train|mlp_train_step|transformer_block' 2>&1 | grep -E '^\{"name' | tail -8
