#!/usr/bin/env bash
# Session 26, call 2: conv_block_train's CUDA graph as built (EMBER_LOG=graphs: each kernel and
# the calls it waits for), then the benchmark's batch-norm statistics as three chained mean_dims
# (chain) and as rows then batch (EMBER_BENCH_BN=rows, an uncommitted change to
# bench/workloads_bench.cc: no gain, not kept) alternated, then PyTorch's figures.
source scripts/gpu-bench-lib.sh
EMBER_LOG=graphs EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 120 $bin/ember_bench \
  --benchmark_filter='BM_conv_block_train/fused:1' --benchmark_min_time=0.001 \
  --benchmark_repetitions=1 2>&1 | grep "ember: cuda" | tail -52
env_ab EMBER_BENCH_BN "chain rows chain rows" 'BM_conv_block_train/fused:1' 100
torch_steps conv_block_train
