#!/usr/bin/env bash
# Session 26, call 1: CUDA graphs whose kernels wait only for the kernels they conflict with
# (runtime/cuda/graph_order.h). The device-generic suites (training fuzzers with held outputs,
# buffer reuse, in-place reuse) and the conv suites on cuda:0, then the training steps with
# EMBER_CUDA_CONCURRENT=0 (a chain, the old graphs) and 1 alternated, then PyTorch's figures.
source scripts/gpu-bench-lib.sh
cuda_tests "$generic_suites:ConvGpu*:ConvMma*:ConvSimt*" 240
training_steps_ab EMBER_CUDA_CONCURRENT "0 1 0 1"
