#!/usr/bin/env bash
# Session 29, call 5: the f32 vector tiles read an M-major A (x^T @ dy, the weight gradients),
# and a narrow 128 x 128 vector tile (two per SM) takes outputs that give the 128 x 256 one too
# few tiles (mlp_train_step's 1024 x 2048). Correctness on CUDA (every forced block with ragged
# edges, batches and transposed views; the training fuzzers), then the training steps against
# EMBER_MATMUL_BLOCK=8 (the SIMT template everywhere, as before for these shapes), alternated,
# each matmul of an mlp step timed alone, and PyTorch's figures.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
cuda_tests "MatmulBlocks.*:FuzzTrain*:BufferReuse.*:InPlaceReuse.*:SplitK*:FlushReplay.*" 300
env_ab EMBER_MATMUL_BLOCK "0 8 0 8" 'BM_(mlp_train_step|transformer_block)/fused:1' 200
slowest_kernels 'BM_mlp_train_step/fused:1' 18 EMBER_MATMUL_BLOCK=0 > /dev/null
grep "ember kernel" "$out/kernels_EMBER_MATMUL_BLOCK_0_.txt" | tail -18 | grep matmul | cut -c1-150
torch_steps 'mlp_train_step|transformer_block'
