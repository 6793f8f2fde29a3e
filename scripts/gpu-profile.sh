#!/usr/bin/env bash
# Runs on the GPU machine after scripts/gpu-bundle.sh (carrying gpu-bundle and .gl): Nsight
# Compute (ncu) on chosen kernels of the benchmark workloads, to see where a kernel's time goes
# (occupancy, memory throughput, warp stall reasons). Each entry of EMBER_PROFILE is
# "benchmark-regex@launches-to-skip@launches-to-profile"; the heuristic configurations are
# profiled (EMBER_AUTOTUNE=off). Writes one ncu report per entry to $OUT (or ./gpu-out).
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh > /dev/null
export EMBER_BENCH_GPU=1 EMBER_AUTOTUNE=off EMBER_CACHE_DIR=/tmp/ember-cache
export EMBER_DEVICE=${EMBER_DEVICE:-cuda}
bin=gpu-bundle/bin
sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
  --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section SchedulerStats"
i=0
for entry in ${EMBER_PROFILE:-softmax_16384x4096/fused:1@4@1}; do
  IFS=@ read -r filter skip count <<< "$entry"
  i=$((i + 1))
  ncu --clock-control none -k regex:ember --launch-skip "${skip:-4}" --launch-count "${count:-1}" \
    $sections $bin/ember_bench --benchmark_filter="$filter" --benchmark_min_time=0.01 \
    > "$out/ncu_$i.txt" 2>&1
  echo "ncu $entry exit $?" | tee -a "$out/profile_summary.txt"
  grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Theoretical Occupancy|Memory Throughput" \
    "$out/ncu_$i.txt" | head -12
done
