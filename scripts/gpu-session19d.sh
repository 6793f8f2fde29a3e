#!/usr/bin/env bash
# Session 19's fourth GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench"): the CUDA
# suites of the session's changes (the parameterised tensor-core suites included), the fuzz;
# gpt_small_train_step cold and warm with and without the automatic split-K (wall and device
# time), one step's flush log and kernels; attention forward+backward; PyTorch's figures for
# both in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests '*MatmulMma*:AttentionKernel*:ScatterSorted*:SplitReductions*:ThreadRows*:FuzzTrain.*:Fuzz.*:SplitK*' 240
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ember-s19d
bench 'BM_gpt_small_train_step/fused:1' 200 --benchmark_min_time=0.1
for round in 1 2; do
  echo "round $round, automatic split-K off:"
  EMBER_AUTO_SPLIT_K=0 bench 'BM_gpt_small_train_step/fused:1' 100 --benchmark_min_time=0.1 \
    --benchmark_repetitions=3
  echo "round $round, automatic split-K on:"
  bench 'BM_gpt_small_train_step/fused:1' 100 --benchmark_min_time=0.1 --benchmark_repetitions=3
done
EMBER_LOG=kernels,flush timeout 100 $bin/ember_bench \
  --benchmark_filter='BM_gpt_small_train_step/fused:1' --benchmark_min_time=0.001 \
  --benchmark_repetitions=1 > "$out/kernels_gpt.txt" 2>&1
grep "ember flush" "$out/kernels_gpt.txt" | tail -3
bench 'BM_attention_s(1024|4096)(_causal)?_fwd_bwd/' 200 --benchmark_min_time=0.1 \
  --benchmark_repetitions=3
timeout 200 python3 bench/torch_reference.py --only 'gpt_small|attention_s(1024|4096)(_causal)?_fwd_bwd' \
  2>&1 | grep -E '^\{' | tail -8
