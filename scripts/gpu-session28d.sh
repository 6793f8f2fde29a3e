#!/usr/bin/env bash
# Session 28, call 4: the weight gradient's work units (9 tiles x slices x row parts) against
# the H200's 132 SMs: slices of the batch (EMBER_CONV_WGRAD_SLICES) and row parts
# (EMBER_CONV_WGRAD_PARTS): 32 x 2 (the default: 576 units, 4.36 waves of one per SM), 4 x 7 (252
# units, 1.91), 8 x 7 (504, 3.82), 4 x 14 (504), 16 x 7 (1008, 7.6); one flush (the forward
# started first no longer gains here); the slowest kernels of the default and of 4 x 7.
source scripts/gpu-bench-lib.sh
export EMBER_FLUSH_BEFORE_BACKWARD=0
for sp in "32 2" "4 7" "8 7" "4 14" "16 7" "32 2" "4 7"; do
  set -- $sp
  echo "slices $1 parts $2"
  EMBER_CONV_WGRAD_SLICES=$1 env_ab EMBER_CONV_WGRAD_PARTS "$2" 'BM_conv_block_train/fused:1' 100 --benchmark_min_time=0.1
done
slowest_kernels 'BM_conv_block_train/fused:1' 70 EMBER_CONV_WGRAD_SLICES=4 EMBER_CONV_WGRAD_PARTS=7
torch_steps 'conv_block_train'
