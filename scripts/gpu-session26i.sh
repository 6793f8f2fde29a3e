#!/usr/bin/env bash
# Session 26, call 9: after the review of the whole diff (call_dependencies reads capacities
# and write flags directly): graph replay, the training fuzzers and buffer reuse on cuda:0.
source scripts/gpu-bench-lib.sh
cuda_tests 'GraphReplay.*:FuzzTrain*:Fuzz*:BufferReuse.*:InPlaceReuse.*' 100
