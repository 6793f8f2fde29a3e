# Sourced by the GPU session scripts (scripts/gpu-session*.sh) on the GPU machine, in the
# repository root with gpu-bundle and .gl carried: the environment, $out (results), $bin (the
# bundle's binaries), the device's name, and bench().
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh > /dev/null
bin=gpu-bundle/bin
nvidia-smi -L

# bench FILTER TIMEOUT [ember_bench args...]: the matching benchmarks' per-run and median lines,
# then the whole process's wall time (compiles included when the kernel cache is empty).
bench() {
  local start=$SECONDS
  timeout "$2" $bin/ember_bench --benchmark_filter="$1" "${@:3}" 2>&1 |
    grep -E "^BM_|rror" | grep -v "_mean\|_stddev\|_cv" | head -8
  echo "  ($1: $((SECONDS - start)) s whole process)"
}

# env_ab NAME "V1 V2 ..." FILTER TIMEOUT [ember_bench args...]: the matching benchmarks on CUDA
# (medians of 3; later args override) once per value of environment variable NAME, in the order
# given (list the values alternated for an A/B).
env_ab() {
  local name=$1 v
  for v in $2; do
    echo "$name=$v"
    (
      export "$name=$v"
      EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda bench "$3" "$4" --benchmark_min_time=0.2 \
        --benchmark_repetitions=3 --benchmark_report_aggregates_only=true "${@:5}" | cut -c1-150
    )
  done
}

# cuda_tests FILTER TIMEOUT: the jit suite's tests matching FILTER on cuda:0 (CUDA-only tests
# required, not skipped), failures and the summary lines.
cuda_tests() {
  EMBER_REQUIRE_CUDA=1 EMBER_TEST_DEVICE=cuda:0 EMBER_CACHE_DIR=/tmp/et timeout "$2" $bin/jit_tests \
    --gtest_brief=1 --gtest_filter="$1" 2>&1 |
    grep -E "FAILED|PASSED|tests ran|Failure|rror" | head -20
}

# The device-generic CUDA suites (training fuzzers with held outputs, buffer and in-place reuse,
# edge cases), for cuda_tests.
generic_suites='Fuzz*:FuzzTrain*:BufferReuse.*:InPlaceReuse.*:Bindings.*:GradVulkan*:ClosedForms.*:JitEdgeCases.*:SplitReductions.*:RowTotals.*'

# torch_steps REGEX [TIMEOUT]: PyTorch's figures (bench/torch_reference.py) for the matching
# workloads, one JSON line each.
torch_steps() {
  timeout "${2:-150}" python3 bench/torch_reference.py --only "$1" 2>&1 | grep -E '^\{"name'
}

# training_steps_ab NAME "V1 V2 ...": the training steps of issues 19, 21 and 27
# (conv_block_train, mlp_train_step, transformer_block) on cuda:0 once per value of environment
# variable NAME (medians of 3), then PyTorch's figures for the same steps.
training_steps_ab() {
  env_ab "$1" "$2" 'BM_(conv_block_train|mlp_train_step|transformer_block)/fused:1' 240 \
    --benchmark_min_time=0.1
  torch_steps 'conv_block_train|mlp_train_step|transformer_block'
}

# fixed_division_ab: the training steps with EMBER_FIXED_DIVISION=1 and 0 alternated twice.
fixed_division_ab() { training_steps_ab EMBER_FIXED_DIVISION "1 0 1 0"; }

# flush_phases WORKLOAD: where a steady step's host time goes on cuda:0 (EMBER_LOG=flush, the
# last lines of a short run).
flush_phases() {
  echo "EMBER_LOG=flush $1"
  EMBER_LOG=flush EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 60 $bin/ember_bench \
    --benchmark_filter="BM_$1/fused:1" --benchmark_min_time=0.05 --benchmark_repetitions=1 2>&1 |
    grep "^ember" | tail -5
}

# slowest_kernels FILTER KERNELS [VAR=VALUE...]: one run of the matching benchmark on cuda:0 with
# EMBER_LOG=kernels (each kernel timed alone) under the given environment; prints the six slowest
# of its last KERNELS launches (one step's), the log kept in $out.
slowest_kernels() {
  local log="$out/kernels_$(echo "${*:3}" | tr -c 'A-Za-z0-9_-' _).txt"
  echo "${*:3}: $1, the slowest kernels of one step"
  env "${@:3}" EMBER_LOG=kernels EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda timeout 120 \
    $bin/ember_bench --benchmark_filter="$1" --benchmark_min_time=0.001 \
    --benchmark_repetitions=1 > "$log" 2>&1
  grep "ember kernel" "$log" | tail -"$2" |
    sed -E 's/^ember kernel ([^:]*):.*workgroups, ([0-9.]+) ms.*/\2 ms \1/' | sort -rn | head -6
}
