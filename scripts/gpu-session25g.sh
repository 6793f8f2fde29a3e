#!/usr/bin/env bash
# Session 25, call 7 (issue 19's GPU criteria in one call): conv2d_resnet forward in bf16, f32 and
# TF32, conv2d_depthwise and conv_block_train (tuned, medians of 3), then PyTorch eager and
# torch.compile for the same workloads.
source scripts/gpu-bench-lib.sh
EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench \
  'BM_(conv2d_resnet_(bf16|f32|tf32)|conv2d_depthwise|conv_block_train)/fused:1' 200 \
  --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true |
  cut -c1-150
timeout 240 python3 bench/torch_reference.py \
  --only 'conv2d_resnet_(bf16|f32|tf32)$|conv2d_depthwise|conv_block_train' 2>&1 |
  grep -E '^\{"name'
