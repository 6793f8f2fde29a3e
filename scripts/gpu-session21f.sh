#!/usr/bin/env bash
# Session 21's last GPU pass: the CUDA suites after the planner's slice rule (pass 5's test call
# ran out of its 130 s), with the whole log kept.
source scripts/gpu-bench-lib.sh
EMBER_REQUIRE_CUDA=1 EMBER_TEST_DEVICE=cuda:0 EMBER_CACHE_DIR=/tmp/et timeout 330 $bin/jit_tests \
  --gtest_brief=1 \
  --gtest_filter='Fuzz*:FuzzTrain*:AttentionKernel*:MatmulMma*:FlushReplay*:GraphReplay*:SplitK*:ClosedForms*' \
  > "$out/cuda-tests.txt" 2>&1
echo "rc $?"
grep -E "FAILED|PASSED|tests ran|Failure|rror|fuzz" "$out/cuda-tests.txt" | head -30
