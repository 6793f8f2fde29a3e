#!/usr/bin/env bash
# Session 27, call 3: where conv_block_train's step goes, kernel by kernel: every kernel of one
# step timed alone (EMBER_LOG=kernels, 2 weight-gradient parts), the graph's calls and their
# waits (EMBER_LOG=graphs), the flush phases; nsys's timeline of a few steps if it is installed.
source scripts/gpu-bench-lib.sh
export EMBER_CONV_WGRAD_PARTS=2
slowest_kernels 'BM_conv_block_train/fused:1' 52 EMBER_CONV_WGRAD_PARTS=2 > /dev/null
grep "ember kernel" "$out"/kernels_*.txt | tail -52 | sed -E 's/^.*ember kernel ([^:]*):(.*)/\1:\2/' | cut -c1-160
echo "EMBER_LOG=graphs"
EMBER_LOG=graphs EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 60 $bin/ember_bench \
  --benchmark_filter='BM_conv_block_train/fused:1' --benchmark_min_time=0.001 \
  --benchmark_repetitions=1 2>&1 | grep "ember: cuda:" | tail -53
flush_phases conv_block_train
nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $nsys"
if [ -n "$nsys" ]; then
  EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 120 "$nsys" profile -o "$out/block" --force-overwrite true \
    --cuda-graph-trace node $bin/ember_bench --benchmark_filter='BM_conv_block_train/fused:1' \
    --benchmark_min_time=0.02 --benchmark_repetitions=1 > /dev/null 2>&1
  "$nsys" stats --report cuda_gpu_trace --format csv --output "$out/trace" "$out/block.nsys-rep" > /dev/null 2>&1
  ls "$out"
  f=$(ls "$out"/trace*.csv | head -1)
  # The last step's kernels: start, duration (ns), name.
  tail -60 "$f" | cut -d, -f1,2,19- | cut -c1-120
fi
