#!/usr/bin/env bash
# Session 20's last GPU pass: the staged epilogue on every tensor-core tile, the packed
# self-attention projection and the kept rewrite. The CUDA suites that cover them, then
# gpt_small_train_step from an empty cache (EMBER_LOG=flush: the host stages) and warm, with
# PyTorch's eager and torch.compile figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests '*MatmulMma*:FlushReplay*:GraphReplay*:SplitK*:AttentionKernel*:ScatterSorted*:SplitReductions*' 110
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda
start=$SECONDS
EMBER_LOG=flush EMBER_CACHE_DIR=/tmp/ember-s20e timeout 200 $bin/ember_bench \
  --benchmark_filter='BM_gpt_small_train_step/fused:1' --benchmark_min_time=0.1 \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true > "$out/gpt-log.txt" 2>&1
echo "  (gpt_small from an empty cache: $((SECONDS - start)) s whole process)"
grep -E "^BM_.*(median|mean)|rror" "$out/gpt-log.txt" | cut -c1-260
grep -E "^ember (flush|stages|launch|cuda)" "$out/gpt-log.txt" | tail -6
timeout 130 python3 bench/torch_reference.py --only 'gpt_small' 2>&1 | grep -E '^\{' | tail -3
