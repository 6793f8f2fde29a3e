#!/usr/bin/env bash
# Session 24, call 3 (issue 19): where conv_block_train's step goes on CUDA. The step (medians of
# 3), each kernel of one step timed alone (EMBER_LOG=kernels), the plan's variants
# (EMBER_DUMP=plan), then PyTorch eager and torch.compile in the same call.
source scripts/gpu-bench-lib.sh
step='BM_conv_block_train/fused:1'
EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench "$step" 150 --benchmark_min_time=0.2 \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true | cut -c1-220
EMBER_LOG=kernels EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 120 $bin/ember_bench \
  --benchmark_filter="$step" --benchmark_min_time=0.001 --benchmark_repetitions=1 \
  > "$out/conv_kernels.txt" 2>&1
n=$(grep -c "ember kernel" "$out/conv_kernels.txt")
echo "conv_block_train: $n kernel launches logged; one step's (the last $((n / 8)) are not a step)"
EMBER_DUMP=plan EMBER_DUMP_DIR="$out/plans" EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda \
  bench "$step" 120 --benchmark_min_time=0.1 --benchmark_repetitions=1 | cut -c1-220
grep -h "variant" "$out"/plans/* | sed 's/anchor %[0-9]*//; s/stores \[[^]]*\]//' | sort | uniq -c |
  sort -rn | head -30 | cut -c1-200
timeout 240 python3 bench/torch_reference.py --only 'conv_block_train' 2>&1 | grep -E '^\{' | tail -4
