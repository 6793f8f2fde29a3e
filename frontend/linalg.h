#pragma once
// Linear algebra functions (Burn's burn::tensor::linalg).
#include <limits>

#include "frontend/tensor.h"

namespace ember::linalg {

// The order of a vector norm: L0 counts non-zeros, LInf/LNegInf take max/min |x|, any other p
// gives (sum |x|^p)^(1/p).
struct Norm {
  double p;
  static Norm l0() { return {0}; }
  static Norm l1() { return {1}; }
  static Norm l2() { return {2}; }
  static Norm linf() { return {std::numeric_limits<double>::infinity()}; }
  static Norm lneg_inf() { return {-std::numeric_limits<double>::infinity()}; }
  static Norm lp(double p) { return {p}; }
};

template <int D>
Tensor<D> vector_norm(const Tensor<D>& x, Norm norm, int64_t dim) {
  return Tensor<D>(ops::vector_norm(x.raw(), norm.p, dim));
}

}  // namespace ember::linalg
