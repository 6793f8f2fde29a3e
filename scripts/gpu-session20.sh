#!/usr/bin/env bash
# Session 20's first GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the CUDA
# suites after restoring the CUDA graph launch (d890b02 dropped it), then gpt_small_train_step
# with EMBER_LOG=flush,graphs (where the host time of a replayed step goes), warm repetitions,
# and PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'GraphReplay*:*MatmulMma*:AttentionKernel*:ScatterSorted*:SplitReductions*:BufferReuse*' 150
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s20
start=$SECONDS
EMBER_LOG=flush,graphs timeout 240 $bin/ember_bench --benchmark_filter='BM_gpt_small_train_step/fused:1' \
  --benchmark_min_time=0.1 > /tmp/gpt-log.txt 2>&1
echo "  (cold gpt_small: $((SECONDS - start)) s whole process)"
grep -E "^BM_|rror" /tmp/gpt-log.txt | head -4
grep -E "^ember (flush|stages|launch|cuda)" /tmp/gpt-log.txt | tail -24
cp /tmp/gpt-log.txt "$out/gpt-log.txt"
bench 'BM_gpt_small_train_step/fused:1' 120 --benchmark_min_time=0.1 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true
timeout 120 python3 bench/torch_reference.py --only 'gpt_small' 2>&1 | grep -E '^\{' | tail -4
