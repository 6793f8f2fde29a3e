#!/usr/bin/env bash
# Session 23's second GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench
# fashion_mnist"): the CUDA sources of fashion_mnist's first epoch (why do some MLP matmul
# kernels carry 100 KB of source?), then session 21's training steps with the fixed-divisor A/B
# and PyTorch's figures in the same call (the part of scripts/gpu-session22.sh after its tests:
# fixed_division_ab in scripts/gpu-bench-lib.sh).
source scripts/gpu-bench-lib.sh
EMBER_FASHION_MNIST_DIR=$PWD/gpu-bundle/data EMBER_DUMP=kernels EMBER_DUMP_DIR=/tmp/fm-kernels \
  EMBER_CACHE_DIR=$(mktemp -d) EMBER_DEVICE=cuda timeout 35 $bin/fashion_mnist --epochs 1 \
  > /dev/null 2>&1
tar cJf "$out/fm-kernels.tar.xz" -C /tmp fm-kernels
EMBER_CACHE_DIR=/tmp/ember-s23 fixed_division_ab
