#!/usr/bin/env bash
# Session 20's third GPU pass: gpt_small_train_step's bf16 products alone (BM_matmul_gpt), tuned
# from an empty cache with every candidate's time printed (EMBER_DUMP=autotune), then cuBLAS's
# times for the same products (torch_reference.py's matmul_gpt_*).
source scripts/gpu-bench-lib.sh
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s20c
EMBER_DUMP=autotune timeout 300 $bin/ember_bench --benchmark_filter='BM_matmul_gpt' \
  --benchmark_min_time=0.2 > "$out/matmul-gpt.txt" 2>&1
grep -E "^BM_|rror" "$out/matmul-gpt.txt" | grep -v "_mean\|_stddev\|_cv" | cut -c1-200
grep -E "^autotune|ms " "$out/matmul-gpt.txt" | head -120
timeout 120 python3 bench/torch_reference.py --only 'matmul_gpt' --no-compile 2>&1 | grep -E '^\{'
