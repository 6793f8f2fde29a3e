#!/usr/bin/env bash
# One device call's checks (run on the GPU machine from the repository root, carrying gpu-bundle
# and .gl; see scripts/gpu-bundle.sh): the jit suite sharded over CUDA and Vulkan, then the
# benchmark workloads of gpu-bundle/prev/ember_bench (an earlier main, if carried) and of this
# bundle back to back, then the filter EMBER_CHECK_EXTRA of this bundle with PyTorch's figures.
# At most 8 files land in $OUT.
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh
export EMBER_REQUIRE_VULKAN=1 EMBER_BENCH_GPU=1
nvidia-smi -L | tee "$out/device.txt"
bin=gpu-bundle/bin
run_shards() {  # device, shard count
  local dev=$1 n=$2 req=
  # CUDA-only tests must run in the CUDA pass; elsewhere they skip (the variable unset).
  [ "${dev%%:*}" = cuda ] && req=EMBER_REQUIRE_CUDA=1
  for i in $(seq 0 $((n - 1))); do
    env $req EMBER_CACHE_DIR=/tmp/ember-test-$dev-$i EMBER_TEST_DEVICE=$dev \
      GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i timeout 360 $bin/jit_tests ${EMBER_CHECK_BRIEF---gtest_brief=1} \
      --gtest_filter="${EMBER_CHECK_TESTS:--FuzzTrain*}" > "/tmp/jit-$dev-$i.txt" 2>&1 &
  done
  wait
  for i in $(seq 0 $((n - 1))); do
    echo "== $dev shard $i: $(grep -cE '^\[  FAILED' /tmp/jit-$dev-$i.txt) failed lines"
    grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "/tmp/jit-$dev-$i.txt" | sort | uniq -c | head -20
    cat "/tmp/jit-$dev-$i.txt" >> "$out/jit_tests.txt"
  done | tee -a "$out/summary.txt"
}
t0=$SECONDS
# The training fuzz (EMBER_CHECK_FUZZ programs per process, two processes per device), running
# beside the suites: both check correctness, not speed.
fuzz() {
  for dev in cuda:0 vulkan:0; do
    for k in 0 1; do
      EMBER_CACHE_DIR=/tmp/ember-fuzz-$dev-$k EMBER_TEST_DEVICE=$dev \
        EMBER_FUZZ_TRAIN_FIRST=$((k * EMBER_CHECK_FUZZ)) EMBER_FUZZ_TRAIN_PROGRAMS=$EMBER_CHECK_FUZZ \
        timeout 400 $bin/jit_tests --gtest_filter='FuzzTrain*' > "/tmp/fuzz-$dev-$k.txt" 2>&1 &
    done
    # One more program to rerun on each device (a seed that failed before).
    if [ -n "${EMBER_CHECK_FUZZ_RERUN:-}" ]; then
      EMBER_CACHE_DIR=/tmp/ember-fuzz-$dev-rerun EMBER_TEST_DEVICE=$dev \
        EMBER_FUZZ_TRAIN_FIRST=$EMBER_CHECK_FUZZ_RERUN EMBER_FUZZ_TRAIN_PROGRAMS=1 \
        timeout 400 $bin/jit_tests --gtest_filter='FuzzTrain*' > "/tmp/fuzz-$dev-rerun.txt" 2>&1 &
    fi
  done
  wait
}
[ -n "${EMBER_CHECK_FUZZ:-}" ] && fuzz &
if [ -z "${EMBER_CHECK_NO_TESTS:-}" ]; then
  # Both devices at once (16 cores, one GPU): the suites are mostly compile and launch latency.
  run_shards cuda:0 "${EMBER_CHECK_CUDA_SHARDS:-8}" &
  run_shards vulkan:0 "${EMBER_CHECK_VULKAN_SHARDS:-4}" &
  wait
fi
wait
if [ -n "${EMBER_CHECK_FUZZ:-}" ]; then
  for f in /tmp/fuzz-*.txt; do
    echo "$f: $(grep -E '^fuzz-train:|FAILED  \]' "$f" | head -3)"
    cat "$f" >> "$out/jit_tests.txt"
  done | tee -a "$out/summary.txt"
fi
echo "tests and fuzz: $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
bench() {  # binary, device, filter, file
  EMBER_CACHE_DIR=/tmp/ember-bench-$RANDOM EMBER_DEVICE=$2 timeout "${5:-200}" $1 --benchmark_min_time=0.05 \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_filter="$3" --benchmark_out="$4" --benchmark_out_format=json > /dev/null 2>> "$out/bench.err"
}
ab=${EMBER_CHECK_AB:-'(copy_1GiB|gelu_64M|softmax|adam_64M|matmul_4096_f32|matmul_8192_bf16|mlp_train_step)/fused:1'}
[ -f gpu-bundle/prev/ember_bench.xz ] && xz -dkf gpu-bundle/prev/ember_bench.xz
chmod +x gpu-bundle/prev/ember_bench 2>/dev/null
if [ -x gpu-bundle/prev/ember_bench ] && [ -z "${EMBER_CHECK_SKIP_AB:-}" ]; then
  for dev in cuda vulkan; do
    bench gpu-bundle/prev/ember_bench $dev "$ab" "$out/ab_prev_$dev.json" 90
    bench $bin/ember_bench $dev "$ab" "$out/ab_new_$dev.json" 90
  done
  python3 scripts/bench_ab.py "$out"/ab_prev_cuda.json "$out"/ab_new_cuda.json \
    "$out"/ab_prev_vulkan.json "$out"/ab_new_vulkan.json | tee -a "$out/summary.txt"
fi
echo "A/B: $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
if [ -n "${EMBER_CHECK_EXTRA:-}" ]; then
  for dev in ${EMBER_CHECK_EXTRA_DEVICES:-cuda vulkan}; do
    bench $bin/ember_bench $dev "$EMBER_CHECK_EXTRA" "$out/extra_$dev.json" 100
  done
  PYTHONUNBUFFERED=1 timeout "${EMBER_CHECK_TORCH_S:-150}" python3 bench/torch_reference.py --iters 10 --only "${EMBER_CHECK_TORCH:-conv}" \
    > "$out/torch.json" 2>> "$out/bench.err"
  python3 bench/report.py "$out"/extra_*.json "$out/torch.json" | tee -a "$out/summary.txt"
fi
echo "total: $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
