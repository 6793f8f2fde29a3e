#!/usr/bin/env bash
# Session 16's single-GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench fashion_mnist
# guide_train" bash scripts/gpu-bundle.sh): the first-epoch and main-job cold starts, then the
# jit suites and the training fuzz on CUDA and Vulkan (scripts/gpu-check.sh without A/B).
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh
export EMBER_FASHION_MNIST_DIR=$PWD/gpu-bundle/data
nvidia-smi -L | tee "$out/device.txt"
s=$(date +%s.%N)
EMBER_CACHE_DIR=/tmp/fm-cold EMBER_DEVICE=cuda gpu-bundle/bin/fashion_mnist --epochs 1 > "$out/cold.txt" 2>&1
rc=$?
echo "fashion_mnist --epochs 1, empty cache: $(echo "$(date +%s.%N) - $s" | awk '{print $1 - $3}') s (exit $rc)" | tee -a "$out/cold.txt"
s=$(date +%s.%N)
EMBER_CACHE_DIR=/tmp/fm-cold EMBER_DEVICE=cuda gpu-bundle/bin/fashion_mnist --epochs 1 > /dev/null 2>&1
echo "fashion_mnist --epochs 1, warm cache: $(echo "$(date +%s.%N) - $s" | awk '{print $1 - $3}') s" | tee -a "$out/cold.txt"
s=$(date +%s.%N)
EMBER_CACHE_DIR=/tmp/guide-cold EMBER_DEVICE=cuda gpu-bundle/bin/guide_train --artifact-dir /tmp/guide > "$out/guide.txt" 2>&1
echo "guide_train (3 epochs), empty cache: $(echo "$(date +%s.%N) - $s" | awk '{print $1 - $3}') s" | tee -a "$out/cold.txt"
grep -E "summary|valid done" "$out/guide.txt" | tail -4 | tee -a "$out/cold.txt"
EMBER_CHECK_FUZZ=${EMBER_CHECK_FUZZ:-8} EMBER_CHECK_SKIP_AB=1 timeout "${EMBER_CHECK_S:-400}" bash scripts/gpu-check.sh
