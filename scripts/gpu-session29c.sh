#!/usr/bin/env bash
# Session 29, call 3: the weight gradient's work units balanced across the H200's 396 slots of
# the two-group tile (3 per SM) by parts of rows with their own slices of the batch
# (EMBER_CONV_WGRAD_PLAN="S:R,...", an experiment): "32:28,32:28" is the default (576 units,
# 1.45 waves); "32:41,8:10,4:5" one wave of 396 units (41, 40 and 40 row-images each);
# "32:21,32:21,16:10,8:4" two waves of 792. Then conv_block_train against PyTorch three times.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
env_ab EMBER_CONV_WGRAD_PLAN "32:28,32:28 32:41,8:10,4:5 32:21,32:21,16:10,8:4 32:28,32:28 32:41,8:10,4:5 32:21,32:21,16:10,8:4" \
  'BM_conv2d_resnet_f32_train/fused:1|BM_conv_block_train/fused:1' 120
slowest_kernels 'BM_conv_block_train/fused:1' 60 EMBER_CONV_WGRAD_PLAN=32:41,8:10,4:5
grep "ember kernel" "$out"/kernels_*.txt | tail -60 | grep conv_conv | cut -c1-160
for i in 1 2 3; do
  env_ab EMBER_FLUSH_BEFORE_BACKWARD "1" 'BM_conv_block_train/fused:1' 120
  torch_steps conv_block_train
done
