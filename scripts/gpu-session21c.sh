#!/usr/bin/env bash
# Session 21's third GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): index
# divisions by sizes and strides as a multiply-high and shifts. The CUDA suites over the code
# generator, then gpt_small_train_step with it on and off (EMBER_FIXED_DIVISION=0), alternating
# processes over one kernel cache, and one step of each with every launch timed.
source scripts/gpu-bench-lib.sh
cuda_tests 'Fuzz*:FuzzTrain*:ClosedForms*:JitEdgeCases*:MatmulMma*:AttentionKernel*:SplitK*:SplitReductions*:ThreadRows*:ConvGpu*:ScatterSorted*:GraphReplay*:FlushReplay*:Vectorized*:RowTotals*' 200
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s21c
gpt='BM_gpt_small_train_step/fused:1'
start=$SECONDS
timeout 200 $bin/ember_bench --benchmark_filter="$gpt" --benchmark_min_time=0.1 > "$out/gpt-cold.txt" 2>&1
echo "  (cold gpt_small: $((SECONDS - start)) s whole process)"
grep -E "^BM_|rror" "$out/gpt-cold.txt" | head -2 | cut -c1-250
for round in 1 2; do
  for fixed in 1 0; do
    echo "round $round EMBER_FIXED_DIVISION=$fixed"
    EMBER_FIXED_DIVISION=$fixed bench "$gpt" 100 --benchmark_min_time=0.1 \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true | cut -c1-200
  done
done
for fixed in 1 0; do
  EMBER_FIXED_DIVISION=$fixed EMBER_LOG=kernels timeout 60 $bin/ember_bench \
    --benchmark_filter="$gpt" --benchmark_min_time=0.001 --benchmark_repetitions=1 \
    > "$out/gpt-kernels-fixed$fixed.txt" 2>&1
  python3 scripts/kernel_summary.py "$out/gpt-kernels-fixed$fixed.txt" --kernels 662 --top 40 \
    > "$out/gpt-summary-fixed$fixed.txt"
  echo "EMBER_FIXED_DIVISION=$fixed"; head -24 "$out/gpt-summary-fixed$fixed.txt" | cut -c1-150
done
