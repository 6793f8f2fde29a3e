#pragma once
// The conv family: a grouped N-d convolution as an implicit GEMM (per group, rows are output
// pixels of every sample, columns output channels, the reduction runs over input channels and
// kernel offsets), with an elementwise epilogue on its output (bias, activation, residual,
// batch-norm scale and shift). The input is read through index arithmetic: no im2col buffer.
// Variants: the SIMT GEMM loop's per-thread block (every device), or a direct loop per output
// for convolutions with few output channels per group (depthwise ones).
#include "kernels/family.h"

namespace ember::jit {

const Family& conv_family();

}  // namespace ember::jit
