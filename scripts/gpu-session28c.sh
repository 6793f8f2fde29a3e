#!/usr/bin/env bash
# Session 28, call 3: backward() starts the forward first unless the backward would recompute
# more than 64 MiB of product operands (frontend/detail/forward_flush.h; before, any at all):
# EMBER_FLUSH_BEFORE_BACKWARD 1 (default) and 0 (one flush) alternated on mlp_train_step (16 MiB
# of hidden activations: now starts early), transformer_block (512 MiB of probabilities: stays
# in one flush) and conv_block_train, with PyTorch's figures; then the CUDA suites.
source scripts/gpu-bench-lib.sh
torch_steps 'conv_block_train|mlp_train_step|transformer_block'
training_steps_ab EMBER_FLUSH_BEFORE_BACKWARD "1 0 1 0"
cuda_tests "$generic_suites:ConvGpu*:ConvSimt*:GraphReplay.*:Lazy.*:Autodiff.*" 280
