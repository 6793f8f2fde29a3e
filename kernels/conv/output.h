#pragma once
// Where a convolution kernel's implicit-GEMM outputs go: position (row, column) of group b's
// product is y[n, b * Og + column, o...] with row = (n, o...) over the batch and output pixels.
// Shared by the SIMT lowering and the tensor-core tile, with the fused epilogue (every output of
// the kernel stored where the conv's value is provided).
#include <vector>

#include "jit/codegen/emitter.h"
#include "kernels/kernel_plan.h"

namespace ember::jit {

class ConvOutput {
 public:
  // M rows and N columns per group.
  ConvOutput(const ir::Graph& g, Emitter& e, const KernelPlan& kp, int64_t M, int64_t N);
  // Provides the conv's value `value` (accumulator type) at (group, row, column) and stores the
  // kernel's outputs there when the position lies inside M x N.
  void store(int group, int row, int column, int value) const;

 private:
  const ir::Graph& g_;
  Emitter& e_;
  const KernelPlan& kp_;
  std::vector<int> m_dims_;  // [N, out...] as parameter words
  int p_og_, pM_, pN_;
};

// Splits flat index `flat` over `dims` (row-major; each dim an expression): the per-dim
// expressions.
std::vector<int> unflatten(Emitter& e, int flat, const std::vector<int>& dims);

}  // namespace ember::jit
