#!/usr/bin/env bash
# Dumps the softmax kernel Ember generates (EMBER_DUMP=kernels from ember_bench's softmax_4M),
# builds it and its hand-pipelined edit (the generated kernel's header with
# pipelined_kernel.cc.in in place of its kernel) with the CPU target's flags
# (runtime/cpu/host_compiler.cc), checks the edit's outputs against the generated kernel's and
# times both alternately, six rounds, in one sitting. EMBER_BENCH: the ember_bench to dump from.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench=${EMBER_BENCH:-$here/../../../build/bench/ember_bench}
out=${OUT:-/tmp/cpu-softmax-lab}
rm -rf "$out" && mkdir -p "$out/dump"
EMBER_DEVICE=cpu EMBER_CACHE_DIR="$out/cache" EMBER_DUMP=kernels EMBER_DUMP_DIR="$out/dump" \
  "$bench" --benchmark_filter='softmax_4M/fused:1' --benchmark_min_time=0.01 > /dev/null 2>&1
entry='^extern "C" void ember_k0_row_binary_mul'
generated=$(grep -l "$entry" "$out"/dump/*.cc | head -1)
cp "$generated" "$out/softmax_generated.cc"
{ sed "/$entry/,\$d" "$generated"; cat "$here/pipelined_kernel.cc.in"; } > "$out/softmax_pipelined.cc"
flags="-O3 -march=native -fopenmp-simd -fwrapv -fPIC -shared -std=c++20 -ffp-contract=off
  -fno-math-errno -fno-trapping-math -fno-plt --param=vect-max-version-for-alias-checks=64 -w"
for k in softmax_generated softmax_pipelined; do g++ $flags "$out/$k.cc" -o "$out/$k.so"; done
g++ -O2 -std=c++20 "$here/harness.cc" -o "$out/harness" -ldl -pthread
for round in 1 2 3 4 5 6; do
  for k in softmax_generated softmax_pipelined; do
    "$out/harness" "$out/$k.so" "$out/softmax_generated.so"
  done
done
