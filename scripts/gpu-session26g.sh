#!/usr/bin/env bash
# Session 26, call 7: conv_block_train with nn::BatchNorm modules (statistics as each image's
# channel rows, then the batch; running statistics updated), beside the hand-written batch norm
# of conv_block_train, alternated; the nn suite's BatchNorm on cuda:0 is not in this bundle (the
# nn tests ran on the CPU and lavapipe). Then PyTorch's figures (torch.nn.BatchNorm2d).
source scripts/gpu-bench-lib.sh
for i in 1 2; do
  EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench 'BM_conv_block_train(_nn)?/fused:1' 100 \
    --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true |
    cut -c1-150
done
torch_steps conv_block_train
