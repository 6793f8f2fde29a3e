#!/usr/bin/env bash
# Session 28, call 2: the exact f32 conv tiles capped at 80 registers (three 256-thread
# workgroups per SM; EMBER_CONV_SIMT_OCCUPANCY=0 is the compiler's 128, two per SM) alternated on
# conv2d_resnet f32 forward and forward+backward and conv_block_train; then the weight
# gradient's split-k tile (EMBER_CONV_SIMT_SPLIT 2: two groups, three per SM; 4: four groups, one
# per SM) against its row parts (EMBER_CONV_WGRAD_PARTS); the slowest kernels of one step; the
# conv suites on CUDA.
source scripts/gpu-bench-lib.sh
env_ab EMBER_CONV_SIMT_OCCUPANCY "1 0 1 0" 'BM_conv2d_resnet_f32(_train)?/fused:1' 120
for parts in 2 4 1; do
  echo "EMBER_CONV_WGRAD_PARTS=$parts"
  EMBER_CONV_WGRAD_PARTS=$parts env_ab EMBER_CONV_SIMT_SPLIT "2 4" 'BM_conv_block_train/fused:1' 100 --benchmark_min_time=0.1
done
EMBER_CONV_SIMT_SPLIT=4 env_ab EMBER_CONV_SIMT_OCCUPANCY "0" 'BM_conv_block_train/fused:1' 100 --benchmark_min_time=0.1
slowest_kernels 'BM_conv_block_train/fused:1' 50
slowest_kernels 'BM_conv_block_train/fused:1' 50 EMBER_CONV_SIMT_OCCUPANCY=0 EMBER_CONV_SIMT_SPLIT=4
torch_steps 'conv_block_train|conv2d_resnet_f32'
cuda_tests "ConvGpu*:ConvMma*:ConvSimt*:FuzzTrain*" 200
