#!/usr/bin/env bash
# Prepared in session 21 for the next GPU call (bundle: EMBER_BUNDLE_TARGETS="jit_tests
# ember_bench"): first the CUDA suites over session 21's review fixes (reshape groups in the
# structural hash, nested gradient concatenations), which never ran on a GPU; then the training
# steps of issues 19 and 27 that session 21's index-arithmetic changes touch but did not
# measure, each with EMBER_FIXED_DIVISION=0 as the A/B, and PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'Fuzz*:FuzzTrain*:AttentionKernel*:MatmulMma*:FlushReplay*:GraphReplay*:SplitK*:ClosedForms*:ConvGpu*' 300
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s22
steps='BM_(conv_block_train|mlp_train_step|transformer_block)/fused:1'
for fixed in 1 0 1 0; do
  echo "EMBER_FIXED_DIVISION=$fixed"
  EMBER_FIXED_DIVISION=$fixed bench "$steps" 150 --benchmark_min_time=0.1 \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true | cut -c1-200
done
timeout 150 python3 bench/torch_reference.py --only 'conv_block_train|mlp_train_step|transformer_block' \
  2>&1 | grep -E '^\{' | tail -8
