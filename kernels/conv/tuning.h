#pragma once
// The conv family's SIMT block through the autotune cache: a grouped convolution's implicit GEMM
// (per group M output pixels of every sample, N output channels, K input channels times kernel
// offsets) has shapes the matmul heuristic misjudges (a weight gradient: few tiles with a
// reduction thousands long), so its per-thread block (RM rows x RN columns) is tuned like the
// matmul's and the row kernel's.
#include <functional>
#include <string>

#include "autotune/key.h"
#include "ir/graph.h"
#include "runtime/backend.h"

namespace ember::jit {

struct ConvShape {
  int64_t groups = 1, M = 0, N = 0, K = 0;
  DType dtype = DType::F32;
  bool mma = false;  // the tensor-core tiles are the candidates (kernels/conv/tensor_core.h)
};

// A SIMT block (rm x rn outputs per thread), or tensor-core tile `mma` (1-based) when mma > 0.
struct ConvBlock {
  int rm = 1, rn = 1, mma = 0;
  bool operator==(const ConvBlock&) const = default;
};

struct ConvChoice {
  ConvBlock block;
  std::string tune_key;  // empty: nothing to tune
};

// The implicit GEMM of conv node y = conv(x, w) for group b:
//   A[m][k] = x[n, b * Cg + c, o * stride - pad + q * dilation] (0 outside the input),
//     m = (n, o...) over the batch and output pixels, k = (c, q...) over channels and offsets;
//   B[k][j] = w[b * Og + j, c, q...];  y[n, b * Og + j, o...] = sum_k A[m][k] B[k][j].
// (the problem as the tuner keys it)
ConvShape conv_gemm(const ir::Graph& g, ir::ValueId y);

autotune::TuneKey conv_tune_key(const ConvShape& s, const runtime::Backend& backend);

// The stored winner, else `heuristic` (with a key to tune under EMBER_AUTOTUNE=on).
ConvChoice choose_conv_block(const ConvShape& s, ConvBlock heuristic,
                             const runtime::Backend& backend);

// Times every block that fits the problem (`time_block`) and returns the winner.
ConvBlock tune_conv_block(const ConvShape& s, ConvBlock heuristic, const runtime::Backend& backend,
                          const std::function<double(ConvBlock)>& time_block);

}  // namespace ember::jit
