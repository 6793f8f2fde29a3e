#!/usr/bin/env bash
# Session 29, call 1: where conv_block_train's step goes, kernel by kernel, on both sides:
# Ember's EMBER_LOG=kernels (each launch timed alone; default, and the weight gradient in one
# row part), the host phases of a steady step, and PyTorch's per-kernel CUDA times (eager and
# torch.compile, cuDNN with TF32 off).
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
env_ab EMBER_FLUSH_BEFORE_BACKWARD "1" 'BM_conv_block_train/fused:1' 120
slowest_kernels 'BM_conv_block_train/fused:1' 60
slowest_kernels 'BM_conv_block_train/fused:1' 60 EMBER_CONV_WGRAD_PARTS=1
echo "EMBER_LOG=flush conv_block_train"
EMBER_LOG=flush EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 60 $bin/ember_bench \
  --benchmark_filter="BM_conv_block_train/fused:1" --benchmark_min_time=0.05 \
  --benchmark_repetitions=1 2>&1 | grep "^ember" | tail -12
timeout 200 python3 scripts/torch_profile.py --only conv_block_train > "$out/torch_profile.txt" 2>&1
echo "torch_profile exit $?"
grep -E "^==|Self CUDA time total" "$out/torch_profile.txt"
