#!/usr/bin/env bash
# Session 26, call 5: a sequence's first kernels launched one by one ahead of the graph of the
# rest (EMBER_CUDA_GRAPH_LEAD=N), so the device starts while the driver takes the graph. The CUDA
# suites with the default (1), then the training steps with N = 0 (the whole sequence one graph),
# 1 and 3 alternated, PyTorch's figures, and the host phases of a steady step (EMBER_LOG=flush).
source scripts/gpu-bench-lib.sh
cuda_tests 'Fuzz*:FuzzTrain*:BufferReuse.*:InPlaceReuse.*:Bindings.*:ClosedForms.*:JitEdgeCases.*:ConvMma*:ConvSimt*:Cuda*' 200
steps='BM_(conv_block_train|mlp_train_step|transformer_block)/fused:1'
env_ab EMBER_CUDA_GRAPH_LEAD "0 1 3 0 1 3" "$steps" 240 --benchmark_min_time=0.1
timeout 150 python3 bench/torch_reference.py \
  --only 'conv_block_train|mlp_train_step|transformer_block' 2>&1 | grep -E '^\{"name' | tail -8
for f in conv_block_train mlp_train_step; do
  echo "EMBER_LOG=flush $f"
  EMBER_LOG=flush EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 60 $bin/ember_bench \
    --benchmark_filter="BM_$f/fused:1" --benchmark_min_time=0.05 --benchmark_repetitions=1 2>&1 |
    grep "^ember" | tail -5
done
