#!/usr/bin/env bash
# Session 29, call 4: mlp_train_step's f32 matmuls, kernel by kernel: Ember as is (the SIMT
# template, 128 x 128 blocks: its 1024 x 2048 outputs give the 128 x 256 vector tile only 64
# tiles), with EMBER_SPLIT_K=2 (two K halves: 128 tiles, the vector tile where its operands
# suit it), and PyTorch's cuBLAS kernels (eager and torch.compile).
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
env_ab EMBER_SPLIT_K "0 2 0 2" 'BM_mlp_train_step/fused:1' 120
for s in 0 2; do
  slowest_kernels 'BM_mlp_train_step/fused:1' 18 EMBER_SPLIT_K=$s > /dev/null
  echo "EMBER_SPLIT_K=$s, every kernel of one step:"
  grep "ember kernel" "$out/kernels_EMBER_SPLIT_K_${s}_.txt" | tail -18 | cut -c1-150
done
timeout 200 python3 scripts/torch_profile.py --only mlp_train_step > "$out/torch_profile.txt" 2>&1
echo "torch_profile exit $?"
grep -E "^==|gemm|Self CUDA time total" "$out/torch_profile.txt" | cut -c1-60,100-200
