#!/usr/bin/env bash
# Session 27, call 2: the weight gradient's row parts with the split-k tile down to K = 512
# (EMBER_CONV_SPLIT_MIN_K; 4 parts of conv_block_train's are K = 784): parts 1, 2 and 4
# alternated; each part's kernel time alone; the graph's waits with 4 parts.
source scripts/gpu-bench-lib.sh
export EMBER_CONV_SPLIT_MIN_K=512
env_ab EMBER_CONV_WGRAD_PARTS "1 2 4 1 2 4" 'BM_conv_block_train/fused:1' 200 \
  --benchmark_min_time=0.1
slowest_kernels 'BM_conv_block_train/fused:1' 52 EMBER_CONV_WGRAD_PARTS=2
slowest_kernels 'BM_conv_block_train/fused:1' 56 EMBER_CONV_WGRAD_PARTS=4
echo "EMBER_LOG=graphs, 4 parts"
EMBER_CONV_WGRAD_PARTS=4 EMBER_LOG=graphs EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 60 \
  $bin/ember_bench --benchmark_filter='BM_conv_block_train/fused:1' --benchmark_min_time=0.001 \
  --benchmark_repetitions=1 2>&1 | grep "ember: cuda:" | tail -60 | grep -E "conv|add|graph"
