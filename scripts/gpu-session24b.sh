#!/usr/bin/env bash
# Session 24, call 2 (issue 27). (EMBER_MMA_PERSISTENT was replaced by EMBER_MMA_CLUSTER later in
# the session: CUDA grids run one workgroup per tile, so only the direct epilogue differed.) Bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench" bash
# scripts/gpu-bundle.sh.
# 1. The tensor-core matmul suites on cuda:0 with the TF32 swapped tile persistent (default) and
#    not (EMBER_MMA_PERSISTENT=0).
# 2. TF32 4096 and 8192, persistent on/off alternated twice (tuned, medians of 3), then cuBLAS
#    through PyTorch in the same call.
# 3. mlp_train_step on CUDA: each kernel timed alone (EMBER_LOG=kernels) and the plan's variants
#    (EMBER_DUMP=plan), to see where its f32 matmuls lose to torch.compile.
source scripts/gpu-bench-lib.sh
tests='MatmulMma*:*MatmulMmaTiles*:*MatmulMmaTma*:MatmulTf32*'
cuda_tests "$tests" 150
EMBER_MMA_PERSISTENT=0 cuda_tests "$tests" 150
env_ab EMBER_MMA_PERSISTENT "1 0 1 0" 'BM_matmul_4096_tf32/fused:1|BM_matmul_square/n:8192/type:2' 120
timeout 120 python3 bench/torch_reference.py --only 'matmul_(4096|8192)_tf32' --no-compile 2>&1 |
  grep -E '^\{' | tail -4
EMBER_LOG=kernels EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 120 $bin/ember_bench \
  --benchmark_filter='BM_mlp_train_step/fused:1' --benchmark_min_time=0.001 \
  --benchmark_repetitions=1 > "$out/mlp_kernels.txt" 2>&1
echo "mlp_train_step, the last step's kernels:"
grep "ember kernel" "$out/mlp_kernels.txt" | tail -40 | cut -c1-200
EMBER_DUMP=plan EMBER_DUMP_DIR="$out/plans" EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda \
  bench 'BM_mlp_train_step/fused:1' 120 --benchmark_min_time=0.1 --benchmark_repetitions=1
grep -h "matmul\|block=\|mma=" "$out"/plans/* | sort | uniq -c | sort -rn | head -30 | cut -c1-200
