#!/usr/bin/env bash
# Session 27, call 7: the CUDA suites on the final code of call 6 (training fuzzers: step 1 with
# backward() starting the forward where it does, reuse, conv, attention gradients).
source scripts/gpu-bench-lib.sh
cuda_tests 'FuzzTrain*:InPlaceReuse.*:BufferReuse.*:ConvGpu*:AttentionKernel.*:GradVulkan*:Fuzz*' 170
