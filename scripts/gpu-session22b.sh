#!/usr/bin/env bash
# Session 22's one short GPU call (about 3 minutes of device time were left; bundle:
# EMBER_BUNDLE_TARGETS="jit_tests ember_bench fashion_mnist" bash scripts/gpu-bundle.sh):
# the CUDA tests over session 21's review fixes and the tuning budget, then the cold starts
# that the budget is for, with the default budget: the first epoch of fashion_mnist from an
# empty cache, and the MLP training step's first step (BM_start/warm:0, three processes' worth
# of repeats, each from an empty cache).
source scripts/gpu-bench-lib.sh
export EMBER_FASHION_MNIST_DIR=$PWD/gpu-bundle/data
cuda_tests 'TuneBudget*:MatmulMma*:FixedDivisor*:FlushReplay*:GraphReplay*' 60 | tee "$out/tests.txt"
for run in 1 2; do
  s=$(date +%s.%N)
  EMBER_TUNE_BUDGET=0.5+10% EMBER_CACHE_DIR=$(mktemp -d) EMBER_DEVICE=cuda timeout 35 \
    $bin/fashion_mnist --epochs 1 > "$out/fm$run.txt" 2>&1
  rc=$?
  echo "fashion_mnist --epochs 1, empty cache, default budget, run $run:" \
    "$(echo "$(date +%s.%N) - $s" | awk '{print $1 - $3}') s (exit $rc)" | tee -a "$out/cold.txt"
  grep -E "ember:|epoch" "$out/fm$run.txt" | tail -3
done
EMBER_TUNE_BUDGET=0.5+10% EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench 'BM_start/warm:0' 30 \
  --benchmark_report_aggregates_only=false | tee -a "$out/cold.txt"
