// Activation functions, written from primitives in their numerically stable forms.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "frontend/detail/primitives.h"
#include "frontend/ops.h"
#include "ir/builder.h"

namespace ember::ops {
namespace {

using ir::BinaryFn;
using ir::ReduceFn;
using ir::UnaryFn;

RawTensor s_(const RawTensor& x, double v) {
  return prim::scalar_like(x, ir::Scalar::from_double(v), x.dtype());
}
RawTensor mul_s(const RawTensor& x, double v) {
  return prim::binary_scalar(BinaryFn::Mul, x, ir::Scalar::from_double(v));
}
RawTensor add_s(const RawTensor& x, double v) {
  return prim::binary_scalar(BinaryFn::Add, x, ir::Scalar::from_double(v));
}
RawTensor mul(const RawTensor& a, const RawTensor& b) { return prim::binary(BinaryFn::Mul, a, b); }
RawTensor sub(const RawTensor& a, const RawTensor& b) { return prim::binary(BinaryFn::Sub, a, b); }
RawTensor add(const RawTensor& a, const RawTensor& b) { return prim::binary(BinaryFn::Add, a, b); }
RawTensor div(const RawTensor& a, const RawTensor& b) { return prim::binary(BinaryFn::Div, a, b); }
RawTensor un(UnaryFn fn, const RawTensor& x) { return prim::unary(fn, x); }

void require_float(const RawTensor& x, const char* op) {
  if (!is_float(x.dtype())) {
    throw Error(absl::StrCat(op, ": needs a float tensor, got ", x.type().to_string()));
  }
}

// log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)).
RawTensor softplus1(const RawTensor& x) {
  RawTensor pos = prim::binary(BinaryFn::Max, x, s_(x, 0.0));
  return add(pos, un(UnaryFn::Log1p, un(UnaryFn::Exp, un(UnaryFn::Neg, un(UnaryFn::Abs, x)))));
}

}  // namespace

RawTensor relu(const RawTensor& x) {
  ir::OpScope scope("relu");
  return prim::binary(BinaryFn::Max, x, prim::scalar_like(x, ir::Scalar::from_int(0), x.dtype()));
}

RawTensor gelu(const RawTensor& x) {
  ir::OpScope scope("gelu");
  require_float(x, "gelu");
  // x * (1 + erf(x / sqrt(2))) / 2, the exact form.
  RawTensor e = un(UnaryFn::Erf, mul_s(x, 1.0 / std::sqrt(2.0)));
  return mul_s(mul(x, add_s(e, 1.0)), 0.5);
}

RawTensor leaky_relu(const RawTensor& x, double slope) {
  ir::OpScope scope("leaky_relu");
  require_float(x, "leaky_relu");
  RawTensor neg = prim::binary(BinaryFn::Lt, x, s_(x, 0.0));
  return prim::where(neg, mul_s(x, slope), x);
}

RawTensor sigmoid(const RawTensor& x) {
  ir::OpScope scope("sigmoid");
  require_float(x, "sigmoid");
  // exp(-softplus(-x)) stays finite for large |x|.
  return un(UnaryFn::Exp, un(UnaryFn::Neg, softplus1(un(UnaryFn::Neg, x))));
}

RawTensor log_sigmoid(const RawTensor& x) {
  ir::OpScope scope("log_sigmoid");
  require_float(x, "log_sigmoid");
  return un(UnaryFn::Neg, softplus1(un(UnaryFn::Neg, x)));
}

RawTensor hard_sigmoid(const RawTensor& x, double alpha, double beta) {
  ir::OpScope scope("hard_sigmoid");
  require_float(x, "hard_sigmoid");
  RawTensor y = add_s(mul_s(x, alpha), beta);
  return clamp(y, Scalar(0.0), Scalar(1.0));
}

RawTensor silu(const RawTensor& x) {
  ir::OpScope scope("silu");
  return mul(x, sigmoid(x));
}

RawTensor mish(const RawTensor& x) {
  ir::OpScope scope("mish");
  require_float(x, "mish");
  return mul(x, un(UnaryFn::Tanh, softplus1(x)));
}

RawTensor softplus(const RawTensor& x, double beta) {
  ir::OpScope scope("softplus");
  require_float(x, "softplus");
  if (beta == 0) throw Error("softplus: beta must not be 0");
  return mul_s(softplus1(mul_s(x, beta)), 1.0 / beta);
}

RawTensor prelu(const RawTensor& x, const RawTensor& alpha) {
  ir::OpScope scope("prelu");
  require_float(x, "prelu");
  // alpha holds one slope, or one per channel (dim 1).
  if (alpha.rank() != 1 ||
      (alpha.shape()[0] != 1 && (x.rank() < 2 || alpha.shape()[0] != x.shape()[1]))) {
    throw Error(absl::StrCat("prelu: weight ", alpha.shape().to_string(),
                             " must have 1 element or one per channel of ", x.shape().to_string()));
  }
  Shape view(std::vector<int64_t>(x.rank(), 1));
  if (alpha.shape()[0] != 1) view[1] = alpha.shape()[0];
  RawTensor a = prim::reshape(alpha, view);
  RawTensor neg = prim::binary(BinaryFn::Lt, x, s_(x, 0.0));
  return prim::where(neg, mul(x, a), x);
}

namespace {

// The maximum along d that (log-)softmax subtracts for range, outside the tape: the result does
// not depend on it, so its gradient is zero and computing one (through the maximum's argmax
// mask) would cost a second row kernel in backward for a sum that rounds to about zero.
RawTensor row_shift(const RawTensor& x, int d) {
  return prim::reduce(ReduceFn::Max, x, d).detached();
}

}  // namespace

RawTensor softmax(const RawTensor& x, int64_t dim) {
  ir::OpScope scope("softmax");
  require_float(x, "softmax");
  int d = normalize_dim(dim, x.rank(), "softmax");
  RawTensor e = un(UnaryFn::Exp, sub(x, row_shift(x, d)));
  // Times the sum's reciprocal, as PyTorch's kernels do: one division per row, not per element
  // (within 1.5 ulp of the quotient).
  RawTensor sum = prim::reduce(ReduceFn::Sum, e, d);
  return mul(e, div(prim::scalar_like(sum, ir::Scalar::from_double(1.0), sum.dtype()), sum));
}

RawTensor softmin(const RawTensor& x, int64_t dim) {
  ir::OpScope scope("softmin");
  return softmax(un(UnaryFn::Neg, x), dim);
}

RawTensor log_softmax(const RawTensor& x, int64_t dim) {
  ir::OpScope scope("log_softmax");
  require_float(x, "log_softmax");
  int d = normalize_dim(dim, x.rank(), "log_softmax");
  RawTensor shifted = sub(x, row_shift(x, d));
  RawTensor lse = un(UnaryFn::Log, prim::reduce(ReduceFn::Sum, un(UnaryFn::Exp, shifted), d));
  return sub(shifted, lse);
}

RawTensor quiet_softmax(const RawTensor& x, int64_t dim) {
  ir::OpScope scope("quiet_softmax");
  require_float(x, "quiet_softmax");
  // Softmax with an extra zero logit: exp(x - m) / (exp(-m) + sum(exp(x - m))).
  int d = normalize_dim(dim, x.rank(), "quiet_softmax");
  RawTensor m = row_shift(x, d);
  RawTensor e = un(UnaryFn::Exp, sub(x, m));
  RawTensor denom = add(un(UnaryFn::Exp, un(UnaryFn::Neg, m)), prim::reduce(ReduceFn::Sum, e, d));
  return div(e, denom);
}

std::vector<RawTensor> meshgrid(const std::vector<RawTensor>& xs, bool matrix_indexing) {
  ir::OpScope scope("meshgrid");
  int n = static_cast<int>(xs.size());
  std::vector<int64_t> shape;
  for (const RawTensor& x : xs) {
    if (x.rank() != 1) {
      throw Error(absl::StrCat("meshgrid: inputs must be 1-D, got ", x.shape().to_string()));
    }
    shape.push_back(x.shape()[0]);
  }
  // Cartesian ("xy") indexing swaps the roles of the first two inputs.
  bool swap = !matrix_indexing && n >= 2;
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<RawTensor> out;
  for (int i = 0; i < n; ++i) {
    int axis = swap && i < 2 ? 1 - i : i;
    Shape view(std::vector<int64_t>(n, 1));
    view[axis] = xs[i].shape()[0];
    out.push_back(prim::expand(prim::reshape(xs[i], view), Shape(shape)));
  }
  return out;
}

RawTensor vector_norm(const RawTensor& x, double p, int64_t dim) {
  ir::OpScope scope("vector_norm");
  require_float(x, "vector_norm");
  int d = normalize_dim(dim, x.rank(), "vector_norm");
  RawTensor a = un(UnaryFn::Abs, x);
  if (std::isinf(p)) return prim::reduce(p > 0 ? ReduceFn::Max : ReduceFn::Min, a, d);
  if (p == 0) {
    RawTensor nz = prim::cast(prim::binary(BinaryFn::Ne, x, s_(x, 0.0)), x.dtype());
    return prim::reduce(ReduceFn::Sum, nz, d);
  }
  if (p == 1) return prim::reduce(ReduceFn::Sum, a, d);
  if (p == 2) return un(UnaryFn::Sqrt, prim::reduce(ReduceFn::Sum, mul(x, x), d));
  RawTensor powed = prim::binary(BinaryFn::Pow, a, s_(x, p));
  return prim::binary(BinaryFn::Pow, prim::reduce(ReduceFn::Sum, powed, d), s_(x, 1.0 / p));
}

}  // namespace ember::ops
