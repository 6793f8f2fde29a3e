#!/usr/bin/env bash
# Prepared in session 21 for the next GPU call (bundle: EMBER_BUNDLE_TARGETS="jit_tests
# ember_bench"): first the CUDA suites over session 21's review fixes (reshape groups in the
# structural hash, nested gradient concatenations), which never ran on a GPU; then the training
# steps of issues 19 and 27 that session 21's index-arithmetic changes touch but did not
# measure, each with EMBER_FIXED_DIVISION=0 as the A/B, and PyTorch's figures in the same call.
source scripts/gpu-bench-lib.sh
cuda_tests 'Fuzz*:FuzzTrain*:AttentionKernel*:MatmulMma*:FlushReplay*:GraphReplay*:SplitK*:ClosedForms*:ConvGpu*' 300
EMBER_CACHE_DIR=/tmp/ember-s22 fixed_division_ab
