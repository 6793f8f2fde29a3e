#!/usr/bin/env bash
# Session 21's first GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the CUDA
# suites session 20 left unrun (the attention scale test at 0.5, the fuzz over kept rewrites),
# then gpt_small_train_step with the staged epilogue on (default) and off
# (EMBER_MMA_STAGED_EPILOGUE=0), alternating processes over one kernel cache, and one step of
# each with every launch timed (EMBER_LOG=kernels, summed by scripts/kernel_summary.py).
source scripts/gpu-bench-lib.sh
cuda_tests 'AttentionKernel*:Fuzz*:FuzzTrain*' 150
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s21
gpt='BM_gpt_small_train_step/fused:1'
start=$SECONDS
EMBER_LOG=flush timeout 200 $bin/ember_bench --benchmark_filter="$gpt" --benchmark_min_time=0.1 \
  > "$out/gpt-cold.txt" 2>&1
echo "  (cold gpt_small: $((SECONDS - start)) s whole process)"
grep -E "^BM_|rror" "$out/gpt-cold.txt" | head -4
grep -E "^ember (flush|stages|launch|cuda)" "$out/gpt-cold.txt" | tail -6
for round in 1 2; do
  for staged in 1 0; do
    echo "round $round staged=$staged"
    EMBER_MMA_STAGED_EPILOGUE=$staged bench "$gpt" 100 --benchmark_min_time=0.1 \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
  done
done
for staged in 1 0; do
  EMBER_MMA_STAGED_EPILOGUE=$staged EMBER_LOG=kernels timeout 60 $bin/ember_bench \
    --benchmark_filter="$gpt" --benchmark_min_time=0.001 --benchmark_repetitions=1 \
    > "$out/gpt-kernels-staged$staged.txt" 2>&1
  python3 scripts/kernel_summary.py "$out/gpt-kernels-staged$staged.txt" --kernels 662 --top 30 \
    > "$out/gpt-summary-staged$staged.txt"
  echo "staged=$staged"; head -22 "$out/gpt-summary-staged$staged.txt" | cut -c1-150
done
