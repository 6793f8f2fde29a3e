#!/usr/bin/env bash
# Session 26, call 4: Nsight Compute on conv_block_train's conv tiles (forwards, input gradient,
# weight gradients: occupancy, waves, throughput, stalls), after a run that warms the kernel and
# tuning caches; then where the host time of a steady conv_block_train and mlp_train_step step
# goes (EMBER_LOG=flush, the last lines of a longer run).
source scripts/gpu-bench-lib.sh
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ec26
run_block() { timeout "$1" "${@:2}" $bin/ember_bench --benchmark_filter='BM_conv_block_train/fused:1' \
  --benchmark_min_time=0.001 --benchmark_repetitions=1; }
run_block 120 > /dev/null 2>&1
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $ncu"
run_block 300 "$ncu" --clock-control none --kernel-name regex:'conv_.*tile' --launch-skip 10 \
  --launch-count 5 --section LaunchStats --section Occupancy --section SpeedOfLight \
  --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  > "$out/ncu_conv_block.txt" 2>&1
grep -E "conv_.*tile|Duration|Achieved Occupancy|Theoretical Occupancy|Waves Per SM|Registers Per|Block Limit|Grid Size|Block Size|Compute \(SM\) Throughput|Memory Throughput|Warp Cycles Per Issued|Issue Slots Busy|L1/TEX Hit|L2 Hit" \
  "$out/ncu_conv_block.txt" | head -120
for f in conv_block_train mlp_train_step; do flush_phases $f; done
