#!/usr/bin/env bash
# Builds the generated softmax kernel and its hand-pipelined edit with the CPU target's flags
# (runtime/cpu/host_compiler.cc) and times them alternately, six rounds, in one sitting.
set -euo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/cpu-softmax-lab}
mkdir -p "$out"
flags="-O3 -march=native -fopenmp-simd -fwrapv -fPIC -shared -std=c++20 -ffp-contract=off
  -fno-math-errno -fno-trapping-math -fno-plt --param=vect-max-version-for-alias-checks=64 -w"
for k in softmax_generated softmax_pipelined; do g++ $flags $k.cc -o "$out/$k.so"; done
g++ -O2 -std=c++20 harness.cc -o "$out/harness" -ldl -pthread
for round in 1 2 3 4 5 6; do
  for k in softmax_generated softmax_pipelined; do
    "$out/harness" "$out/$k.so" "$out/softmax_generated.so"
  done
done
