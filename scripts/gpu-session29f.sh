#!/usr/bin/env bash
# Session 29, call 6: the f32 vector tiles for every operand layout (an M-major A, a K-major B)
# and the narrow tile: every forced block on CUDA (ragged edges, batches, transposed operands),
# the heuristic's tile width, the training fuzzers with held outputs; then mlp_train_step and
# transformer_block against EMBER_MATMUL_BLOCK=8 (the SIMT template), alternated, and each
# matmul of an mlp step timed alone.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
cuda_tests "*MatmulBlocks.*:MatmulHeuristic*:FuzzTrain*:BufferReuse.*:InPlaceReuse.*:FlushReplay.*" 240
env_ab EMBER_MATMUL_BLOCK "0 8 0 8" 'BM_(mlp_train_step|transformer_block)/fused:1' 200
slowest_kernels 'BM_mlp_train_step/fused:1' 18 EMBER_MATMUL_BLOCK=0 > /dev/null
grep "ember kernel" "$out/kernels_EMBER_MATMUL_BLOCK_0_.txt" | tail -18 | grep matmul | cut -c1-150
