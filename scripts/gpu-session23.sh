#!/usr/bin/env bash
# Prepared in session 22 (which had no device time left) for the next GPU call; bundle:
# EMBER_BUNDLE_TARGETS="jit_tests ember_bench fashion_mnist" bash scripts/gpu-bundle.sh.
# 0. What NVIDIA's Vulkan driver offers for cooperative matrices (scripts/vk_coopmat_probe.cc).
# 1. Session 22's short pass (scripts/gpu-session22b.sh): the CUDA tests over session 21's review
#    fixes and the tuning budget, then fashion_mnist's first epoch and the MLP step's cold start
#    under the default budget (EMBER_TUNE_BUDGET=0.5+10%).
# 2. gpt_small_train_step's cold start (whole process, empty cache) under the default budget,
#    against session 20-21's 140-160 s with every kernel tuned at the first flush; its steady
#    step there is partly untuned (the budget tunes the rest later), so the steady figure to
#    compare with earlier sessions' is the unlimited run of step 3.
# 3. Session 21's prepared pass (scripts/gpu-session22.sh): the jit suites on CUDA, then
#    conv_block_train, mlp_train_step and transformer_block with the fixed-divisor A/B and
#    PyTorch's figures.
source scripts/gpu-env.sh > /dev/null
mkdir -p "${OUT:-gpu-out}"
gpu-bundle/bin/vk_coopmat_probe | tee "${OUT:-gpu-out}/coopmat.txt"
bash scripts/gpu-session22b.sh
source scripts/gpu-bench-lib.sh
EMBER_TUNE_BUDGET=0.5+10% EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=$(mktemp -d) \
  bench 'BM_gpt_small_train_step/fused:1' 300 --benchmark_repetitions=1 | tee -a "$out/gpt_cold.txt"
bash scripts/gpu-session22.sh
