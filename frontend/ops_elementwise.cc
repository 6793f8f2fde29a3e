// Elementwise ops built on Unary/Binary/Where/Cast.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "frontend/detail/primitives.h"
#include "frontend/ops.h"
#include "ir/builder.h"

namespace ember::ops {

using ir::BinaryFn;
using ir::UnaryFn;

RawTensor unary(UnaryFn fn, const RawTensor& x) { return prim::unary(fn, x); }

RawTensor binary(BinaryFn fn, const RawTensor& a, const RawTensor& b) {
  return prim::binary(fn, a, b);
}

RawTensor binary_scalar(BinaryFn fn, const RawTensor& x, const Scalar& s) {
  return prim::binary_scalar(fn, x, s.ir());
}

RawTensor scalar_binary(BinaryFn fn, const Scalar& s, const RawTensor& x) {
  return prim::binary_scalar(fn, x, s.ir(), /*scalar_first=*/true);
}

RawTensor cast(const RawTensor& x, DType dtype) { return prim::cast(x, dtype); }

RawTensor is_finite(const RawTensor& x) {
  ir::OpScope scope("is_finite");
  RawTensor bad = prim::binary(BinaryFn::LogicalOr, prim::unary(UnaryFn::IsNan, x),
                               prim::unary(UnaryFn::IsInf, x));
  return prim::unary(UnaryFn::LogicalNot, bad);
}

RawTensor clamp(const RawTensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  ir::OpScope scope("clamp");
  if (min && max && min->as_double() > max->as_double()) {
    throw Error(absl::StrCat("clamp: min ", min->as_double(), " above max ", max->as_double()));
  }
  RawTensor y = x;
  if (min) y = prim::binary_scalar(BinaryFn::Max, y, min->ir());
  if (max) y = prim::binary_scalar(BinaryFn::Min, y, max->ir());
  return y;
}

RawTensor mask_fill(const RawTensor& x, const RawTensor& mask, Scalar value) {
  ir::OpScope scope("mask_fill");
  return prim::where(mask, prim::scalar_like(x, value.ir(), x.dtype()), x);
}

RawTensor mask_where(const RawTensor& x, const RawTensor& mask, const RawTensor& values) {
  ir::OpScope scope("mask_where");
  return prim::where(mask, values, x);
}

RawTensor is_close(const RawTensor& a, const RawTensor& b, double rtol, double atol) {
  ir::OpScope scope("is_close");
  // |a - b| <= atol + rtol * |b|, or exactly equal (which also matches equal infinities).
  RawTensor diff = prim::unary(UnaryFn::Abs, prim::binary(BinaryFn::Sub, a, b));
  RawTensor bound = prim::binary_scalar(BinaryFn::Mul, prim::unary(UnaryFn::Abs, b),
                                        ir::Scalar::from_double(rtol));
  bound = prim::binary_scalar(BinaryFn::Add, bound, ir::Scalar::from_double(atol));
  RawTensor close = prim::binary(BinaryFn::Le, diff, bound);
  if (is_float(a.dtype())) {
    // An infinity is close only to itself (the equality below), as in PyTorch.
    close = prim::binary(BinaryFn::LogicalAnd, close,
                         prim::binary(BinaryFn::LogicalAnd, is_finite(a), is_finite(b)));
  }
  return prim::binary(BinaryFn::LogicalOr, close, prim::binary(BinaryFn::Eq, a, b));
}

bool all_close(const RawTensor& a, const RawTensor& b, double rtol, double atol) {
  return all(is_close(a, b, rtol, atol)).to_data().to_vec<bool>()[0];
}

static RawTensor triangle(const RawTensor& x, int64_t diagonal, bool lower, const char* op) {
  ir::OpScope scope(op);
  RawTensor masked_out = lower ? tril_mask(x.shape(), diagonal, x.device())
                               : triu_mask(x.shape(), diagonal, x.device());
  return prim::where(masked_out, prim::scalar_like(x, ir::Scalar::from_int(0), x.dtype()), x);
}

RawTensor tril(const RawTensor& x, int64_t diagonal) { return triangle(x, diagonal, true, "tril"); }
RawTensor triu(const RawTensor& x, int64_t diagonal) {
  return triangle(x, diagonal, false, "triu");
}

RawTensor one_hot_fill(const RawTensor& x, int64_t num_classes, Scalar on, Scalar off, int64_t axis,
                       DType dtype) {
  ir::OpScope scope("one_hot");
  if (num_classes <= 0) {
    throw Error(absl::StrCat("one_hot: number of classes must be positive, got ", num_classes));
  }
  int r = x.rank() + 1;
  int a = normalize_dim(axis, r, "one_hot");
  RawTensor idx = prim::cast(unsqueeze_dim(x, a), DType::I64);
  // Each class goes through a gather from [0, num_classes): a class out of range (negative
  // included) fails the result when it is read, as gather's indices do, instead of giving a
  // silent row of `off` values.
  RawTensor range = prim::iota(Shape{num_classes}, DType::I64, 0, x.device());
  RawTensor flat = prim::reshape(idx, Shape{idx.shape().numel()});
  idx = prim::reshape(prim::gather(range, 0, flat), idx.shape());
  Shape classes(std::vector<int64_t>(r, 1));
  classes[a] = num_classes;
  RawTensor hot = prim::binary(BinaryFn::Eq, idx, prim::iota(classes, DType::I64, a, x.device()));
  return prim::where(hot, prim::scalar_like(hot, on.ir(), dtype),
                     prim::scalar_like(hot, off.ir(), dtype));
}

}  // namespace ember::ops
