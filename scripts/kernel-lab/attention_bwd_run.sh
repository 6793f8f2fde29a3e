#!/bin/bash
# Runs on the GPU machine, carrying lab-run (see attention_bwd_lab.cu): the backward kernels
# checked against the host at small sizes, then timed at the `attention` workload's.
cd "$(dirname "$0")/../.." || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
lab=./lab-run/attention_bwd_lab
status=0
for args in "64 1 2 2 130 200 0 1" "64 1 2 2 130 200 1 1" "64 1 4 2 96 96 1 1" "64 2 2 2 150 70 1 1" \
            "64 1 2 2 70 150 1 1" "128 1 2 2 100 100 1 1" "128 1 2 1 64 64 0 1" "64 1 1 1 1 1 0 1" \
            "64 8 16 16 1024 1024 0 0" "64 8 16 16 1024 1024 1 0" "64 8 16 16 4096 4096 0 0" \
            "64 8 16 16 4096 4096 1 0"; do
  timeout 120 $lab $args || status=1
done
exit $status
