#!/usr/bin/env bash
# Session 29, call 2: a stream remembers its last four distinct flushes (the forward and the
# backward of a training step, flushed in turn, now both replay): the replay suites on CUDA, a
# steady conv_block_train step's host phases, then the training steps with the forward flushed
# first (two flushes) and in one flush, alternated, with PyTorch's figures.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
cuda_tests "FlushReplay.*:GraphReplay.*:FuzzTrain*:BufferReuse.*" 240
for w in conv_block_train mlp_train_step; do
  echo "EMBER_LOG=flush $w"
  EMBER_LOG=flush EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 60 $bin/ember_bench \
    --benchmark_filter="BM_$w/fused:1" --benchmark_min_time=0.05 \
    --benchmark_repetitions=1 2>&1 | grep "^ember" | tail -12
done
training_steps_ab EMBER_FLUSH_BEFORE_BACKWARD "1 0 1 0"
