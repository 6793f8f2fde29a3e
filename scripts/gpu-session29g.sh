#!/usr/bin/env bash
# Session 29, call 7 (main at 533aaf3, the session's last code): the vector tiles' forced blocks
# and heuristic on CUDA, the conv and training fuzzers; then issue 19's GPU criteria with
# PyTorch in the same call (conv2d_resnet f32 and bf16 forward against cuDNN, depthwise,
# conv_block_train and conv_block_train_nn against torch.compile), conv_block_train against
# PyTorch twice more, and mlp_train_step / transformer_block last.
source scripts/gpu-bench-lib.sh
export EMBER_CACHE_DIR=/tmp/ember-cache
cuda_tests "*MatmulBlocks.*R16*:*MatmulBlocks.*R17*:MatmulHeuristic*:FuzzTrain*:ConvGpu*" 150
env_ab EMBER_FLUSH_BEFORE_BACKWARD "1" \
  'BM_conv2d_resnet_(f32|bf16)/fused:1|BM_conv2d_depthwise/fused:1|BM_conv_block_train(_nn)?/fused:1' 150
torch_steps 'conv2d_resnet_f32$|conv2d_resnet_bf16$|conv2d_depthwise|conv_block_train' 150
for i in 2 3; do
  env_ab EMBER_FLUSH_BEFORE_BACKWARD "1" 'BM_conv_block_train/fused:1' 60
  torch_steps 'conv_block_train' 60
done
env_ab EMBER_FLUSH_BEFORE_BACKWARD "1" 'BM_(mlp_train_step|transformer_block)/fused:1' 90
