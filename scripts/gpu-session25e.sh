#!/usr/bin/env bash
# Session 25, call 5 (issue 19): the exact f32 conv tile (conv_simt.cuh) and the shared gather
# (conv_gather.cuh). The conv suites, conv2d_resnet f32 and conv_block_train with the tiles and
# without them (EMBER_CONV_MMA=0) alternated, the bf16/TF32 forwards again, conv_block_train's
# kernels timed alone, and PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'ConvMma*:ConvSimt*:ConvGpu*' 200
env_ab EMBER_CONV_MMA "-1 0 -1 0" 'BM_(conv2d_resnet_f32(_train)?|conv_block_train)/fused:1' 150
env_ab EMBER_CONV_MMA "-1" 'BM_conv2d_resnet_(bf16|tf32)(_train)?/fused:1' 100
EMBER_LOG=kernels EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 120 $bin/ember_bench \
  --benchmark_filter='BM_conv_block_train/fused:1' --benchmark_min_time=0.001 \
  --benchmark_repetitions=1 > "$out/conv_kernels.txt" 2>&1
# One step's kernels (the last 49 launches), slowest first.
grep "ember kernel" "$out/conv_kernels.txt" | tail -49 |
  sed -E 's/^ember kernel ([^:]*):.*workgroups, ([0-9.]+) ms.*/\2 ms \1/' | sort -rn | head -12 |
  cut -c1-120
timeout 200 python3 bench/torch_reference.py --only 'conv2d_resnet|conv_block_train' 2>&1 |
  grep -E '^\{"name'
