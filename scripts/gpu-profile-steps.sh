#!/usr/bin/env bash
# Runs on the GPU machine after scripts/gpu-bundle.sh (carrying gpu-bundle and .gl): where the
# training-step workloads spend their time, kernel by kernel. Ember's side: one tuned pass of
# each workload, then EMBER_LOG=kernels (each launch timed on its own); PyTorch's side:
# scripts/torch_profile.py. Results in $OUT (or ./gpu-out).
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh > /dev/null
export EMBER_BENCH_GPU=1 EMBER_CACHE_DIR=/tmp/ember-cache EMBER_DEVICE=${EMBER_DEVICE:-cuda}
bin=gpu-bundle/bin
nvidia-smi -L > "$out/device.txt"
filter=${EMBER_PROFILE_FILTER:-'BM_(conv_block_train|mlp_train_step/fused:1|transformer_block)'}
$bin/ember_bench --benchmark_filter="$filter" --benchmark_min_time=0.1 \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true > "$out/bench.txt" 2>&1
echo "ember_bench exit $?" | tee -a "$out/summary.txt"
grep -E "median" "$out/bench.txt" | tee -a "$out/summary.txt"
# One iteration each with every launch timed (the cache is warm: tuned kernels).
for w in $(echo "${EMBER_PROFILE_WORKLOADS:-conv_block_train mlp_train_step/fused:1 transformer_block}"); do
  f=$(echo "$w" | tr '/:' '__')
  EMBER_LOG=kernels $bin/ember_bench --benchmark_filter="BM_$w" --benchmark_min_time=0.001 \
    --benchmark_repetitions=1 > "$out/kernels_$f.txt" 2>&1
  echo "kernels $w exit $?" | tee -a "$out/summary.txt"
done
if [ -z "${EMBER_SKIP_TORCH:-}" ]; then
  python3 scripts/torch_profile.py ${EMBER_TORCH_ONLY:+--only "$EMBER_TORCH_ONLY"} \
    > "$out/torch_profile.txt" 2>&1
  echo "torch_profile exit $?" | tee -a "$out/summary.txt"
fi
