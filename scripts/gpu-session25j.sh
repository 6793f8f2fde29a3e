#!/usr/bin/env bash
# Session 25, call 10 (issue 19): conv_block_train with its batch norms' statistics computed as
# nn::BatchNorm computes them (one variance-and-mean per channel row, EMBER_BENCH_BN=rows)
# against the three chained mean_dim reductions the benchmark used so far (=chain), alternated,
# with the conv tiles on; then PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
env_ab EMBER_BENCH_BN "rows chain rows chain" 'BM_conv_block_train/fused:1' 120
timeout 150 python3 bench/torch_reference.py --only 'conv_block_train' 2>&1 | grep -E '^\{"name'
