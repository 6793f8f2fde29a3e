// Tensor creation: constants, ranges, identity and triangle masks, random tensors, transfers.
#include "absl/strings/str_cat.h"
#include "frontend/autodiff.h"
#include "frontend/detail/primitives.h"
#include "frontend/detail/stream.h"
#include "frontend/detail/tape.h"
#include "frontend/ops.h"
#include "ir/builder.h"

namespace ember::ops {

using ir::BinaryFn;

RawTensor full(const Shape& shape, Scalar value, DType dtype, const Device& device) {
  return prim::full(shape, dtype, value.ir(), device);
}

RawTensor zeros(const Shape& shape, DType dtype, const Device& device) {
  return prim::full(shape, dtype, ir::Scalar::from_int(0), device);
}

RawTensor ones(const Shape& shape, DType dtype, const Device& device) {
  return prim::full(shape, dtype, ir::Scalar::from_int(1), device);
}

// col - row compared against `diagonal` over a [rows, cols] grid (broadcast from two iotas).
static RawTensor diagonal_compare(const Shape& shape, int64_t diagonal, BinaryFn fn,
                                  const Device& device, const char* op) {
  if (shape.rank() < 2) {
    throw Error(absl::StrCat(op, ": needs a shape of rank >= 2, got ", shape.to_string()));
  }
  int r = shape.rank();
  Shape rows(std::vector<int64_t>(r, 1)), cols(std::vector<int64_t>(r, 1));
  rows[r - 2] = shape[r - 2];
  cols[r - 1] = shape[r - 1];
  RawTensor i = prim::iota(rows, DType::I64, r - 2, device);
  RawTensor j = prim::iota(cols, DType::I64, r - 1, device);
  RawTensor offset = prim::binary(BinaryFn::Sub, j, i);
  RawTensor mask = prim::binary_scalar(fn, offset, ir::Scalar::from_int(diagonal));
  return prim::expand(mask, shape);
}

RawTensor eye(int64_t size, DType dtype, const Device& device) {
  ir::OpScope scope("eye");
  if (size < 0) throw Error(absl::StrCat("eye: negative size ", size));
  return prim::cast(diagonal_compare(Shape{size, size}, 0, BinaryFn::Eq, device, "eye"), dtype);
}

// Burn's masks are true where values are to be masked out: tril_mask hides what is above the
// diagonal (keeping the lower triangle), triu_mask what is below, diag_mask everything off it.
RawTensor tril_mask(const Shape& shape, int64_t diagonal, const Device& device) {
  return diagonal_compare(shape, diagonal, BinaryFn::Gt, device, "tril_mask");
}

RawTensor triu_mask(const Shape& shape, int64_t diagonal, const Device& device) {
  return diagonal_compare(shape, diagonal, BinaryFn::Lt, device, "triu_mask");
}

RawTensor diag_mask(const Shape& shape, int64_t diagonal, const Device& device) {
  return diagonal_compare(shape, diagonal, BinaryFn::Ne, device, "diag_mask");
}

RawTensor arange(int64_t start, int64_t end, int64_t step, DType dtype, const Device& device) {
  ir::OpScope scope("arange");
  if (step == 0) throw Error("arange: step must not be 0");
  int64_t n = step > 0 ? (end - start + step - 1) / step : (start - end - step - 1) / -step;
  if (n < 0) n = 0;
  RawTensor i = prim::iota(Shape{n}, dtype, 0, device);
  // The common 0..n is the iota itself: no ops for a kernel to carry.
  if (step != 1) i = prim::binary_scalar(BinaryFn::Mul, i, ir::Scalar::from_int(step));
  if (start != 0) i = prim::binary_scalar(BinaryFn::Add, i, ir::Scalar::from_int(start));
  return i;
}

RawTensor random(const Shape& shape, const Distribution& dist, DType dtype, const Device& device) {
  ir::OpScope scope("random");
  using K = Distribution::Kind;
  DType float_type = is_float(dtype) ? dtype : DType::F32;
  ir::RandomDist rd = dist.kind == K::Normal      ? ir::RandomDist::Normal
                      : dist.kind == K::Bernoulli ? ir::RandomDist::Bernoulli
                                                  : ir::RandomDist::Uniform;
  if (dist.kind == K::Uniform && !(dist.a <= dist.b)) {
    throw Error(absl::StrCat("random: uniform needs low <= high, got ", dist.a, ", ", dist.b));
  }
  if (dist.kind == K::Bernoulli && !(dist.a >= 0 && dist.a <= 1)) {
    throw Error(absl::StrCat("random: bernoulli needs 0 <= p <= 1, got ", dist.a));
  }
  // Integer tensors draw uniform floats and floor them, so low..high covers [low, high).
  bool int_uniform = !is_float(dtype) && !is_bool(dtype) && dist.kind != K::Bernoulli;
  RawTensor x =
      prim::random(shape, int_uniform ? DType::F64 : float_type, rd, dist.a, dist.b, device);
  if (int_uniform) x = prim::unary(ir::UnaryFn::Floor, x);
  return prim::cast(x, dtype);
}

RawTensor cartesian_grid(const Shape& shape, DType dtype, const Device& device) {
  ir::OpScope scope("cartesian_grid");
  std::vector<int64_t> dims = shape.vector();
  dims.push_back(1);
  std::vector<RawTensor> coords;
  for (int d = 0; d < shape.rank(); ++d)
    coords.push_back(prim::iota(Shape(dims), dtype, d, device));
  if (coords.empty()) throw Error("cartesian_grid: needs a shape of rank >= 1");
  return prim::concat(coords, shape.rank());
}

RawTensor to_device(const RawTensor& x, const Device& device) {
  if (x.device() == device) return x;
  // Better an error than a gradient that silently misses this path.
  if (ember::is_require_grad(x) && detail::grad_enabled()) {
    throw Error(absl::StrCat("to_device: ", x.type().to_string(), " on ", x.device().to_string(),
                             " requires grad, and gradients do not flow across devices yet; move "
                             "x.detach() (or move it inside a NoGradGuard)"));
  }
  TensorData data = x.to_data();
  return prim::from_data(data, device);
}

}  // namespace ember::ops
