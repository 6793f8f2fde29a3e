#!/usr/bin/env bash
# Session 19's last GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the CUDA
# suites after the review mends, then the lstm workload from an empty cache (issue 21: never
# finished within 120 s before) and PyTorch's cuDNN LSTM in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests '*MatmulMma*:AttentionKernel*:ScatterSorted*:SplitReductions*:FuzzTrain.*:BufferReuse*' 200
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s19e
start=$SECONDS
EMBER_LOG=flush timeout 280 $bin/ember_bench --benchmark_filter='BM_lstm/fused:1' \
  --benchmark_min_time=0.1 2>&1 | grep -E "^BM_|rror|ember flush" | tail -6
echo "  (BM_lstm: $((SECONDS - start)) s whole process, empty cache)"
timeout 100 python3 bench/torch_reference.py --only 'lstm' 2>&1 | grep -E '^\{' | tail -3
