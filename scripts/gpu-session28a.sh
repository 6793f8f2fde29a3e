#!/usr/bin/env bash
# Session 28, call 1: the CUDA suites on session 27's final code (flush rule, held values, a
# padding-only row part); then Nsight Compute's stall reasons and instruction mix for the exact
# f32 conv tile (conv2d_resnet f32 forward), to see what bounds it.
source scripts/gpu-bench-lib.sh
cuda_tests "$generic_suites:ConvGpu*:ConvMma*:ConvSimt*:GraphReplay.*:AttentionKernel.*:Lazy.*:Autodiff.*" 330
export EMBER_BENCH_GPU=1 EMBER_DEVICE=cuda EMBER_CACHE_DIR=/tmp/ec28
run_fwd() { timeout "$1" "${@:2}" $bin/ember_bench --benchmark_filter='BM_conv2d_resnet_f32/fused:1' \
  --benchmark_min_time=0.001 --benchmark_repetitions=1; }
run_fwd 120 > /dev/null 2>&1
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
run_fwd 200 "$ncu" --clock-control none --kernel-name regex:'conv_.*tile' --launch-skip 3 \
  --launch-count 1 --section SpeedOfLight --section InstructionStats --print-details all \
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_global_ld.sum' \
  > "$out/ncu_conv_f32.txt" 2>&1
grep -E "conv_.*tile|Duration|stalled|inst_executed|wavefronts|bank_conflicts|op_shared|op_global" "$out/ncu_conv_f32.txt" | grep -v " 0$" | head -80
