#!/usr/bin/env bash
# Session 21's second GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the
# packed projection's gradient as one concatenation and the reshape index by dim groups. The
# CUDA suites over the changed code generation, gpt_small_train_step from an empty cache
# (EMBER_LOG=flush) and warm, one step with every launch timed (EMBER_LOG=kernels, summed by
# scripts/kernel_summary.py), and PyTorch's eager and torch.compile figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'AttentionKernel*:Fuzz*:FuzzTrain*:MatmulMma*:FlushReplay*:GraphReplay*' 150
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s21b
gpt='BM_gpt_small_train_step/fused:1'
start=$SECONDS
EMBER_LOG=flush timeout 200 $bin/ember_bench --benchmark_filter="$gpt" --benchmark_min_time=0.1 \
  > "$out/gpt-cold.txt" 2>&1
echo "  (cold gpt_small: $((SECONDS - start)) s whole process)"
grep -E "^BM_|rror" "$out/gpt-cold.txt" | head -4 | cut -c1-250
grep -E "^ember (flush|stages|launch|cuda)" "$out/gpt-cold.txt" | tail -6
bench "$gpt" 100 --benchmark_min_time=0.1 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true | cut -c1-250
EMBER_LOG=kernels timeout 60 $bin/ember_bench --benchmark_filter="$gpt" \
  --benchmark_min_time=0.001 --benchmark_repetitions=1 > "$out/gpt-kernels.txt" 2>&1
n=$(grep -o " kernels=[0-9]*" "$out/gpt-kernels.txt" | tail -1 | cut -d= -f2)
python3 scripts/kernel_summary.py "$out/gpt-kernels.txt" --kernels "${n:-662}" --top 40 \
  > "$out/gpt-summary.txt"
head -30 "$out/gpt-summary.txt" | cut -c1-150
timeout 150 python3 bench/torch_reference.py --only 'gpt_small' 2>&1 | grep -E '^\{' | tail -3
