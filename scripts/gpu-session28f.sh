#!/usr/bin/env bash
# Session 28, call 6: the 128 x 64 exact f32 conv tile with its weight copy's offsets worked out
# once per tile (708 instructions a k-tile against 736, NVRTC 13): the conv suites on CUDA
# (correctness of the copy), then conv2d_resnet f32 forward and forward+backward and
# conv_block_train with cuDNN's and torch.compile's figures in the same call (call 2 had 0.250 ms
# against cuDNN's 0.262 for the forward).
source scripts/gpu-bench-lib.sh
cuda_tests "ConvGpu*:ConvSimt*:FuzzTrain*:BufferReuse.*" 240
env_ab EMBER_FLUSH_BEFORE_BACKWARD "1" 'BM_conv2d_resnet_f32(_train)?/fused:1|BM_conv_block_train/fused:1' 120
torch_steps 'conv_block_train|conv2d_resnet_f32'
env_ab EMBER_FLUSH_BEFORE_BACKWARD "1" 'BM_conv2d_resnet_f32(_train)?/fused:1|BM_conv_block_train/fused:1' 120
