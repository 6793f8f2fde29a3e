#!/usr/bin/env bash
# Runs on a GPU machine with two GPUs (nvidia-h100-x2), from a bundle made with
# EMBER_BUNDLE_TARGETS="guide_train guide_infer ember_bench" bash scripts/gpu-bundle.sh:
#   1. the guide (examples/guide) on one GPU: seconds per epoch end to end, accuracy, inference;
#   2. the same with the Learner's data-parallel strategy on 2 ranks (scripts/dist-run.sh);
#   3. optimizer_step and mlp_train_step on CUDA, with PyTorch's figures for the same.
# Output in $OUT (or ./gpu-out).
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nccl_dir=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null)
[ -n "$nccl_dir" ] && export LD_LIBRARY_PATH=$nccl_dir:${LD_LIBRARY_PATH:-}
export EMBER_CACHE_DIR=/tmp/ember-cache EMBER_FASHION_MNIST_DIR=$PWD/gpu-bundle/data
nvidia-smi -L | tee "$out/device.txt"
bin=gpu-bundle/bin
epochs=${EMBER_GUIDE_EPOCHS:-3}
log=$out/guide.txt
start=$SECONDS
EMBER_DEVICE=cuda:0 timeout 240 $bin/guide_train --epochs "$epochs" --artifact-dir /tmp/guide-1 \
  >> "$log" 2>&1
echo "== one GPU: exit $? in $((SECONDS - start)) s" | tee -a "$log"
EMBER_DEVICE=cuda:0 timeout 60 $bin/guide_infer --artifact-dir /tmp/guide-1 >> "$log" 2>&1
echo "== inference: exit $?" | tee -a "$log"
start=$SECONDS
EMBER_DEVICE=cuda timeout 240 scripts/dist-run.sh 2 $bin/guide_train --epochs "$epochs" \
  --artifact-dir /tmp/guide-2 > "$out/guide_ddp.txt" 2>&1
echo "== 2 ranks: exit $? in $((SECONDS - start)) s" | tee -a "$log"
grep -E "epoch .* (train|valid) done|Accuracy|summary|took|^\[0\] .*Total" "$log" "$out/guide_ddp.txt" | tail -20
EMBER_DEVICE=cuda timeout 150 $bin/ember_bench --benchmark_min_time=0.05 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_filter='(optimizer_step|mlp_train_step)/fused:1' \
  > "$out/bench.txt" 2>&1
grep -E "median" "$out/bench.txt"
PYTHONUNBUFFERED=1 timeout 120 python3 bench/torch_reference.py --iters 10 --no-compile \
  --only 'optimizer_step|mlp_train_step' > "$out/torch.json" 2>> "$out/bench.txt"
grep -E '"name"' "$out/bench.txt" | tail -6
