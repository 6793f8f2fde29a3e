// Reductions. Full reductions flatten to one dim and return shape [1]; the *_dim forms keep
// the reduced dim with size 1.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "frontend/detail/primitives.h"
#include "frontend/ops.h"
#include "ir/builder.h"

namespace ember::ops {

using ir::BinaryFn;
using ir::ReduceFn;

RawTensor reduce_dim(ReduceFn fn, const RawTensor& x, int64_t dim) {
  return prim::reduce(fn, x, normalize_dim(dim, x.rank(), ir::reduce_name(fn)));
}

RawTensor reduce_all(ReduceFn fn, const RawTensor& x) {
  RawTensor flat = prim::reshape(x, Shape{x.shape().numel()});
  return prim::reduce(fn, flat, 0);
}

RawTensor mean_dim(const RawTensor& x, int64_t dim) {
  ir::OpScope scope("mean_dim");
  int d = normalize_dim(dim, x.rank(), "mean_dim");
  RawTensor s = prim::reduce(ReduceFn::Sum, x, d);
  return prim::binary_scalar(BinaryFn::Div, s, ir::Scalar::from_int(x.shape()[d]));
}

RawTensor mean(const RawTensor& x) {
  ir::OpScope scope("mean");
  return mean_dim(prim::reshape(x, Shape{x.shape().numel()}), 0);
}

// all/any reduce a bool view with min/max; an empty input gives true/false, as in PyTorch.
static RawTensor bool_reduce(const RawTensor& x, int d, bool is_all) {
  RawTensor b =
      is_bool(x.dtype()) ? x : prim::binary_scalar(BinaryFn::Ne, x, ir::Scalar::from_int(0));
  if (x.shape()[d] == 0) {
    Shape s = x.shape();
    s[d] = 1;
    return prim::full(s, DType::Bool, ir::Scalar::from_int(is_all ? 1 : 0), x.device());
  }
  return prim::reduce(is_all ? ReduceFn::Min : ReduceFn::Max, b, d);
}

RawTensor all_dim(const RawTensor& x, int64_t dim) {
  ir::OpScope scope("all_dim");
  return bool_reduce(x, normalize_dim(dim, x.rank(), "all_dim"), true);
}

RawTensor any_dim(const RawTensor& x, int64_t dim) {
  ir::OpScope scope("any_dim");
  return bool_reduce(x, normalize_dim(dim, x.rank(), "any_dim"), false);
}

RawTensor all(const RawTensor& x) {
  ir::OpScope scope("all");
  return bool_reduce(prim::reshape(x, Shape{x.shape().numel()}), 0, true);
}

RawTensor any(const RawTensor& x) {
  ir::OpScope scope("any");
  return bool_reduce(prim::reshape(x, Shape{x.shape().numel()}), 0, false);
}

TensorPair var_mean(const RawTensor& x, int64_t dim, int64_t correction) {
  ir::OpScope scope("var");
  if (!is_float(x.dtype())) {
    throw Error(absl::StrCat("var: needs a float tensor, got ", x.type().to_string()));
  }
  int d = normalize_dim(dim, x.rank(), "var");
  RawTensor mu = mean_dim(x, d);
  RawTensor centered = prim::binary(BinaryFn::Sub, x, mu);
  RawTensor sq = prim::reduce(ReduceFn::Sum, prim::binary(BinaryFn::Mul, centered, centered), d);
  // Divided by max(0, N - correction), as PyTorch: no degrees of freedom left gives NaN (an
  // empty dim: 0 / 0) or inf, never a negative divisor's -0.
  int64_t n = std::max<int64_t>(0, x.shape()[d] - correction);
  return {prim::binary_scalar(BinaryFn::Div, sq, ir::Scalar::from_double(static_cast<double>(n))),
          mu};
}

RawTensor contains_nan(const RawTensor& x) {
  ir::OpScope scope("contains_nan");
  if (!is_float(x.dtype())) {
    return prim::full(Shape{1}, DType::Bool, ir::Scalar::from_int(0), x.device());
  }
  return any(prim::unary(ir::UnaryFn::IsNan, x));
}

}  // namespace ember::ops
