#!/usr/bin/env bash
# Session 21's fourth GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the plan
# of one gpt_small_train_step (EMBER_DUMP=plan), to find what the one pointwise kernel of 426
# fused ops (1.7 ms, the last layer's q/k/v slices) computes; its description and the kernels
# over the same shape are kept in $out.
source scripts/gpu-bench-lib.sh
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s21d
EMBER_DUMP=plan EMBER_DUMP_DIR=/tmp/dump EMBER_LOG=kernels timeout 250 $bin/ember_bench \
  --benchmark_filter='BM_gpt_small_train_step/fused:1' --benchmark_min_time=0.001 \
  --benchmark_repetitions=1 > "$out/gpt-dump-log.txt" 2>&1
ls -la /tmp/dump | head
python3 scripts/plan_kernel_extract.py /tmp/dump --name slice_slice_slice --largest 1 \
  > "$out/largest-slices-kernel.txt"
head -c 3000 "$out/largest-slices-kernel.txt"
