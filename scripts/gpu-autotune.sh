#!/usr/bin/env bash
# Runs on the GPU machine after scripts/gpu-bundle.sh (carrying gpu-bundle and .gl): square
# matmuls at 1024, 4096 and 8192 in f32 and bf16, or what EMBER_AUTOTUNE_FILTER selects (row
# kernels: softmax, layernorm), with the heuristic variant (EMBER_AUTOTUNE=off)
# and autotuned (=on, from an empty cache: tuning runs in the warm-up steps), then a second
# process with the same cache, which must tune nothing. Writes to $OUT (or ./gpu-out) and
# prints bench/autotune_report.py's table.
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh
export EMBER_BENCH_GPU=1
bin=gpu-bundle/bin
filter=${EMBER_AUTOTUNE_FILTER:-matmul_square}
for dev in ${EMBER_BENCH_DEVICES:-cuda vulkan}; do
  cache=/tmp/ember-autotune-$dev
  rm -rf "$cache"
  for mode in off on; do
    EMBER_CACHE_DIR=$cache EMBER_AUTOTUNE=$mode EMBER_DEVICE=$dev $bin/ember_bench \
      --benchmark_filter="$filter" --benchmark_min_time=${EMBER_BENCH_MIN_TIME:-0.2} \
      --benchmark_out="$out/autotune_${dev}_$mode.json" --benchmark_out_format=json > /dev/null
  done
  # A second process start: every key is cached, so nothing is tuned.
  EMBER_CACHE_DIR=$cache EMBER_AUTOTUNE=on EMBER_DUMP=autotune EMBER_DEVICE=$dev $bin/ember_bench \
    --benchmark_filter="$filter" --benchmark_min_time=0.01 > /tmp/autotune_second.txt 2>&1
  echo "$dev second process: $(grep -c '^autotune ' /tmp/autotune_second.txt) tunings" \
    | tee -a "$out/autotune_summary.txt"
  $bin/ember-autotune --db "$cache/autotune.sqlite" export > "$out/autotune_${dev}_cache.json"
done
python3 bench/autotune_report.py "$out"/autotune_*_off.json "$out"/autotune_*_on.json \
  "$out"/autotune_*_cache.json | tee -a "$out/autotune_summary.txt"
