#!/usr/bin/env bash
# Benchmark A/B on the GPU machine: gpu-bundle/prev/ember_bench (an earlier main, carried xz'd)
# against this bundle's, each workload in its own process, alternating prev/new/prev/new, one
# tuning cache per device shared by both binaries. Prints "workload device binary median_ms".
set -u
source scripts/gpu-env.sh > /dev/null
export EMBER_BENCH_GPU=1
xz -dkf gpu-bundle/prev/ember_bench.xz && chmod +x gpu-bundle/prev/ember_bench
out=${OUT:-gpu-out}
mkdir -p "$out"
for spec in ${EMBER_AB_RUNS:-cuda:mlp_train_step vulkan:mlp_train_step}; do
  dev=${spec%%:*} work=${spec#*:}
  for round in ${EMBER_AB_ROUNDS:-1 2}; do
    for which in prev new; do
      bin=gpu-bundle/bin/ember_bench
      [ $which = prev ] && bin=gpu-bundle/prev/ember_bench
      f="$out/ab-$dev-$work-$which-$round.json"
      EMBER_CACHE_DIR=/tmp/ab-cache-$dev EMBER_DEVICE=$dev timeout "${EMBER_AB_TIMEOUT:-60}" $bin \
        --benchmark_filter="BM_($work)/fused:1" --benchmark_min_time=0.05 \
        --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
        --benchmark_format=json > "$f" 2> /dev/null
      python3 -c "
import json,sys
for b in json.load(open('$f'))['benchmarks']:
    if b.get('aggregate_name') == 'median':
        print(b['name'].split('/')[0][3:], '$dev', '$which', round(b['real_time'], 4))
" 2> /dev/null || echo "$work $dev $which (no result: timeout or error)"
    done
  done
done | tee "$out/ab.txt"
