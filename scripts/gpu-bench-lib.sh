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
