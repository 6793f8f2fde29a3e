#!/usr/bin/env bash
# Session 26, call 5: a sequence's first kernels launched one by one ahead of the graph of the
# rest (EMBER_CUDA_GRAPH_LEAD=N), so the device starts while the driver takes the graph. The CUDA
# suites with the default (1), then the training steps with N = 0 (the whole sequence one graph),
# 1 and 3 alternated, PyTorch's figures, and the host phases of a steady step (EMBER_LOG=flush).
source scripts/gpu-bench-lib.sh
cuda_tests 'Fuzz*:FuzzTrain*:BufferReuse.*:InPlaceReuse.*:Bindings.*:ClosedForms.*:JitEdgeCases.*:ConvMma*:ConvSimt*:Cuda*' 200
training_steps_ab EMBER_CUDA_GRAPH_LEAD "0 1 3 0 1 3"
for f in conv_block_train mlp_train_step; do flush_phases $f; done
