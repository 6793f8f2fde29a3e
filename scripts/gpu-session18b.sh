#!/usr/bin/env bash
# Session 18's second GPU pass (bundle: EMBER_BUNDLE_TARGETS="jit_tests ember_bench onnx_tests",
# gpu-bundle/data removed to fit): the attention suite on CUDA (training gradients through the
# fused forward included); attention forward+backward with the fused forward in training against
# EMBER_ATTENTION_TRAINING=0 (the composite), alternating after a warming round; the full-width
# ResNet-18 exported there by PyTorch, imported and compared on CUDA.
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh > /dev/null
bin=gpu-bundle/bin
nvidia-smi -L
EMBER_REQUIRE_CUDA=1 EMBER_TEST_DEVICE=cuda:0 EMBER_CACHE_DIR=/tmp/et $bin/jit_tests \
  --gtest_brief=1 --gtest_filter='AttentionKernel*' 2>&1 | tail -4
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda
run() {  # label, round, env...
  local label=$1 round=$2
  shift 2
  timeout 100 env "$@" EMBER_CACHE_DIR=/tmp/ember-ab-$label $bin/ember_bench \
    --benchmark_filter='BM_attention_s1024(_causal)?_fwd_bwd/' --benchmark_min_time=0.1 \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 | grep median |
    sed "s/^/$label round $round: /"
}
for round in 0 1; do
  run composite $round EMBER_ATTENTION_TRAINING=0
  run fused-forward $round
done
mkdir -p /tmp/r18
if python3 scripts/make_onnx_fixtures.py /tmp/onnx-fx --full-resnet18 /tmp/r18/resnet18.onnx \
  > /tmp/export.txt 2>&1; then
  fixtures=$(strings $bin/onnx_tests | grep -m1 '/tests/import/onnx/fixtures$')
  [ -e "$fixtures" ] || { mkdir -p "$(dirname "$fixtures")" && ln -s "$PWD/tests/import/onnx/fixtures" "$fixtures"; }
  EMBER_ONNX_TEST_DEVICE=cuda:0 EMBER_ONNX_FULL_RESNET18=/tmp/r18/resnet18.onnx \
    $bin/onnx_tests --gtest_filter='PyTorchFull*' 2>&1 | grep -E "ResNet-18 on|PASSED|FAILED"
else
  tail -3 /tmp/export.txt
fi
