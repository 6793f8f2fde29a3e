#!/usr/bin/env bash
# Runs on a machine with several GPUs (device kind nvidia-h100-x2 or larger), from a bundle made
# with EMBER_BUNDLE_TARGETS="dist_tests ember_ddp_bench" bash scripts/gpu-bundle.sh:
#   1. dist_tests in one process (a local group over every GPU),
#   2. dist_tests as N ranks (collectives of known values, data-parallel MLP vs one device),
#   3. a rank that dies: the others must exit with an error within the NCCL timeout,
#   4. ember_ddp_bench on one GPU, then on N ranks, alternating (scaling at the same per-GPU batch).
# Output in $OUT (or ./gpu-out).
set -u
out=${OUT:-gpu-out}
mkdir -p "$out"
source scripts/gpu-env.sh
# NVLink multicast stays off on these machines (KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# NCCL comes with the machine's PyTorch (nvidia-nccl wheel) when no system copy exists.
nccl_dir=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null)
[ -n "$nccl_dir" ] && export LD_LIBRARY_PATH=$nccl_dir:${LD_LIBRARY_PATH:-}
export EMBER_CACHE_DIR=/tmp/ember-cache
n=${EMBER_DIST_RANKS:-$(nvidia-smi -L | wc -l)}
nvidia-smi -L | tee "$out/device.txt"
nvidia-smi topo -m >> "$out/device.txt" 2>&1
bin=gpu-bundle/bin
log=$out/dist.txt
step() { echo "== $*" | tee -a "$log"; }
# EMBER_DIST_BENCH_ONLY=1 skips the tests (1-3).
if [ -z "${EMBER_DIST_BENCH_ONLY:-}" ]; then
step "dist_tests, one process over $n GPUs"
$bin/dist_tests --gtest_brief=1 >> "$log" 2>&1
echo "exit $?" | tee -a "$log"
step "dist_tests, $n ranks"
EMBER_DEVICE=cuda scripts/dist-run.sh "$n" $bin/dist_tests --gtest_filter='DistRanks.*' >> "$log" 2>&1
echo "exit $?" | tee -a "$log"
grep -E "worst relative|OK|FAILED" "$log" | tail -8
step "a rank dies (rank 1 exits at step 5; EMBER_NCCL_TIMEOUT_S=20)"
start=$(date +%s)
EMBER_DIST_TEST_DIE=1 EMBER_NCCL_TIMEOUT_S=20 scripts/dist-run.sh --grace 90 "$n" \
  $bin/dist_tests --gtest_filter='DistRanks.PeerDeath*' >> "$log" 2>&1
rc=$?
echo "exit $rc after $(($(date +%s) - start)) s (124 would mean a rank hung)" | tee -a "$log"
grep -E "dist-run:|collectives:" "$log" | tail -6
fi
for round in 1 2; do
  step "ember_ddp_bench, 1 GPU (round $round)"
  EMBER_DEVICE=cuda:0 $bin/ember_ddp_bench --benchmark_counters_tabular=true >> "$log" 2>&1
  step "ember_ddp_bench, $n ranks (round $round)"
  EMBER_DEVICE=cuda scripts/dist-run.sh "$n" $bin/ember_ddp_bench --benchmark_counters_tabular=true >> "$log" 2>&1
done
grep -E "^==|median" "$log" | tail -12
