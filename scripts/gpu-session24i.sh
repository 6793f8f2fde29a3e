#!/usr/bin/env bash
# Session 24, call 9, run from branch wip/tf32-persistent (EMBER_MMA_PERSISTENT and EMBER_MMA_RELEASE_NOW are not on main): the swapped TF32 tile with the peer
# released by a plain remote arrive (no .release.cluster, which fences the GPU per arrival), in
# clusters of two or not, releasing each stage after the next k-tile's first step or at once
# after waiting for all of a k-tile's wgmmas (EMBER_MMA_RELEASE_NOW). Not persistent.
source scripts/gpu-bench-lib.sh
EMBER_MMA_PERSISTENT=0 cuda_tests 'MatmulTf32*:*MatmulMmaTma*' 100
EMBER_MMA_PERSISTENT=0 EMBER_MMA_RELEASE_NOW=1 cuda_tests 'MatmulTf32*' 100
for round in 1 2; do
  for c in 1 0; do
    for r in 0 1; do
      echo "EMBER_MMA_CLUSTER=$c release_now=$r"
      if [ "$r" = 1 ]; then export EMBER_MMA_RELEASE_NOW=1; else unset EMBER_MMA_RELEASE_NOW; fi
      EMBER_MMA_CLUSTER=$c EMBER_MMA_PERSISTENT=0 EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda \
        bench 'BM_matmul_4096_tf32/fused:1|BM_matmul_square/n:8192/type:2' 100 \
        --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true |
        cut -c1-100
    done
  done
done
unset EMBER_MMA_RELEASE_NOW
