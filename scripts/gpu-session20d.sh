#!/usr/bin/env bash
# Session 20's fourth GPU pass: the staged epilogue of the copy-engine wgmma tiles. The CUDA
# matmul suites, then BM_matmul_gpt with it and without it (EMBER_MMA_STAGED_EPILOGUE=0), each
# tuned from its own empty cache, cuBLAS's figures, and gpt_small_train_step from an empty cache
# with EMBER_LOG=flush (the host stages after the replay check was made cheap).
source scripts/gpu-bench-lib.sh
cuda_tests '*MatmulMma*:FlushReplay*:GraphReplay*:SplitK*:CudaCompile*:Fuzz.*' 200
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda
for staged in 1 0; do
  echo "== staged epilogue $staged"
  EMBER_MMA_STAGED_EPILOGUE=$staged EMBER_CACHE_DIR=/tmp/ember-s20d-$staged \
    bench 'BM_matmul_gpt' 200 --benchmark_min_time=0.2 | cut -c1-150
done
timeout 100 python3 bench/torch_reference.py --only 'matmul_gpt' --no-compile 2>&1 | grep -E '^\{'
start=$SECONDS
EMBER_LOG=flush EMBER_CACHE_DIR=/tmp/ember-s20d-gpt timeout 250 $bin/ember_bench \
  --benchmark_filter='BM_gpt_small_train_step/fused:1' --benchmark_min_time=0.1 \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true > "$out/gpt-log.txt" 2>&1
echo "  (gpt_small from an empty cache: $((SECONDS - start)) s whole process)"
grep -E "^BM_.*median|rror" "$out/gpt-log.txt" | cut -c1-250
grep -E "^ember (flush|stages|launch|cuda)" "$out/gpt-log.txt" | tail -6
