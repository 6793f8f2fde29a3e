#!/usr/bin/env bash
# Session 21's fifth GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the packed
# projection stored once and read in place (the planner's slice rule). The CUDA suites over the
# planner and attention, gpt_small_train_step from an empty cache and warm, and one step with
# every launch timed.
source scripts/gpu-bench-lib.sh
cuda_tests 'Fuzz*:FuzzTrain*:MatmulMma*:AttentionKernel*:SplitK*:GraphReplay*:FlushReplay*' 130
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s21e
gpt='BM_gpt_small_train_step/fused:1'
start=$SECONDS
EMBER_LOG=flush timeout 200 $bin/ember_bench --benchmark_filter="$gpt" --benchmark_min_time=0.1 \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true > "$out/gpt-cold.txt" 2>&1
echo "  (cold gpt_small: $((SECONDS - start)) s whole process)"
grep -E "^BM_.*(median|mean)|rror" "$out/gpt-cold.txt" | head -4 | cut -c1-250
grep -E "^ember (flush|stages|launch|cuda)" "$out/gpt-cold.txt" | tail -5
EMBER_LOG=kernels timeout 60 $bin/ember_bench --benchmark_filter="$gpt" \
  --benchmark_min_time=0.001 --benchmark_repetitions=1 > "$out/gpt-kernels.txt" 2>&1
n=$(grep -o " kernels=[0-9]*" "$out/gpt-kernels.txt" | tail -1 | cut -d= -f2)
python3 scripts/kernel_summary.py "$out/gpt-kernels.txt" --kernels "${n:-662}" --top 40 \
  > "$out/gpt-summary.txt"
head -26 "$out/gpt-summary.txt" | cut -c1-150
