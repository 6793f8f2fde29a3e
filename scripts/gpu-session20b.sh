#!/usr/bin/env bash
# Session 20's second GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"):
# gpt_small_train_step with the replay check skipped when nothing changed (EMBER_LOG=flush),
# its warm figure, then one step with every launch timed (EMBER_LOG=kernels, summed by
# scripts/kernel_summary.py) and PyTorch's per-kernel table for torch.compile's step.
source scripts/gpu-bench-lib.sh
cuda_tests 'FlushReplay*:GraphReplay*' 60
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s20
start=$SECONDS
EMBER_LOG=flush timeout 240 $bin/ember_bench --benchmark_filter='BM_gpt_small_train_step/fused:1' \
  --benchmark_min_time=0.1 > /tmp/gpt-log.txt 2>&1
echo "  (cold gpt_small: $((SECONDS - start)) s whole process)"
grep -E "^BM_|rror" /tmp/gpt-log.txt | head -4
grep -E "^ember (flush|stages|launch|cuda)" /tmp/gpt-log.txt | tail -12
bench 'BM_gpt_small_train_step/fused:1' 120 --benchmark_min_time=0.1 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true
EMBER_LOG=kernels timeout 120 $bin/ember_bench --benchmark_filter='BM_gpt_small_train_step/fused:1' \
  --benchmark_min_time=0.001 --benchmark_repetitions=1 > "$out/gpt-kernels.txt" 2>&1
python3 scripts/kernel_summary.py "$out/gpt-kernels.txt" --kernels 794 --top 45 | tee "$out/gpt-kernel-summary.txt"
timeout 200 python3 scripts/torch_profile.py --only gpt_small --steps 3 > "$out/torch-gpt-profile.txt" 2>&1
grep -A32 "compile" "$out/torch-gpt-profile.txt" | cut -c1-160 | head -40
