#!/usr/bin/env bash
# Builds the CPU-side suites (ir, runtime, autotune, frontend, data) and the JIT suite on Vulkan
# (lavapipe here) with AddressSanitizer and UndefinedBehaviorSanitizer into build-asan/ and runs
# them; any report fails (UB does not recover, leaks are reported at exit). scripts/test.sh runs
# it after the main suite.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_BUILD_BENCH=OFF \
  -DEMBER_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
  > /dev/null
suites=(ir_tests runtime_tests autotune_tests frontend_tests data_tests jit_tests)
cmake --build build-asan -j "$(nproc)" --target "${suites[@]}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
export EMBER_REQUIRE_VULKAN=1
EMBER_CACHE_DIR=$(mktemp -d)
export EMBER_CACHE_DIR
trap 'rm -rf "$EMBER_CACHE_DIR"' EXIT
for s in "${suites[@]}"; do
  echo "sanitize: $s"
  # EntryWhosePipelineFailsIsRebuilt hands lavapipe a pipeline whose entry point is missing (invalid
  # usage, on purpose): lavapipe keeps 6 allocations of the failed creation (its own leak; every
  # handle Ember created is destroyed, checked by the rest of the suite running leak-free).
  # The tests that run NVRTC on this machine's CUDA toolkit are left to the main stage:
  # nvrtcCompileProgram reads past a 2000-byte buffer of its own (a strlen inside libnvrtc,
  # reported by ASan for the wgmma tile sources of CudaCompile.WgmmaTilesCompileOrFallBack).
  "build-asan/tests/$s" --gtest_brief=1 \
    --gtest_filter=-DiskCache.EntryWhosePipelineFailsIsRebuilt:CudaCompile.*:NoContraction.Cuda*:DumpKernels.WritesSourceThatCompiles
done
echo "sanitize: all suites clean under ASan+UBSan"
