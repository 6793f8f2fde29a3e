// GridSample on [N, C, H, W] inputs: every output point reads the input at the grid's
// coordinates. The taps' indices and weights are tensors computed from the grid, and the reads
// are gathers from the flattened planes.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

struct GridAttrs {
  std::string mode, padding;
  bool align;
};

// Grid values in [-1, 1] to input coordinates along a dim of n.
RawTensor unnormalize(const RawTensor& g, int64_t n, bool align) {
  RawTensor x = bin(BinaryFn::Add, g, 1.0);
  if (align) return bin(BinaryFn::Mul, x, (n - 1) / 2.0);
  return bin(BinaryFn::Div, bin(BinaryFn::Sub, bin(BinaryFn::Mul, x, static_cast<double>(n)), 1.0),
             2.0);
}

// x reflected into [lo, hi]: a triangle wave of period 2 (hi - lo).
RawTensor reflect(const RawTensor& x, double lo, double hi) {
  double range = hi - lo;
  if (range <= 0) return scalar_like(x, lo);
  RawTensor u = bin(BinaryFn::Rem, bin(BinaryFn::Sub, x, lo), 2 * range);
  RawTensor d = un(UnaryFn::Abs, bin(BinaryFn::Sub, u, range));
  return bin(BinaryFn::Sub, scalar_like(x, lo + range), d);
}

// The coordinate with border or reflection padding applied (zeros padding masks taps instead).
RawTensor pad_coord(const RawTensor& x, int64_t n, const GridAttrs& a) {
  if (a.padding == "zeros") return x;
  RawTensor y = x;
  if (a.padding == "reflection") {
    y = a.align ? reflect(x, 0, n - 1) : reflect(x, -0.5, n - 0.5);
  }
  return ops::clamp(y, Scalar(0.0), Scalar(static_cast<double>(n - 1)));
}

// The integer tap positions i (as float tensors) mapped for padding: the index to read and
// whether it lies inside (zeros padding reads 0 outside).
struct Tap {
  RawTensor index, inside;
};

Tap tap(const RawTensor& i, int64_t n, const GridAttrs& a) {
  RawTensor inside = bin(BinaryFn::LogicalAnd, bin(BinaryFn::Ge, i, 0.0),
                         bin(BinaryFn::Le, i, static_cast<double>(n - 1)));
  RawTensor j = i;
  if (a.padding == "reflection") j = a.align ? reflect(i, 0, n - 1) : reflect(i, -0.5, n - 0.5);
  j = ops::clamp(j, Scalar(0.0), Scalar(static_cast<double>(n - 1)));
  if (a.padding != "zeros") inside = ops::full(i.shape(), Scalar(true), DType::Bool, i.device());
  return {ops::cast(un(UnaryFn::Round, j), DType::I64), inside};
}

std::vector<RawTensor> cubic_weights(const RawTensor& t) {
  const double A = -0.75;
  auto near = [&](const RawTensor& d) {  // ((A + 2) d - (A + 3)) d^2 + 1
    RawTensor p = bin(BinaryFn::Sub, bin(BinaryFn::Mul, d, A + 2), A + 3);
    return bin(BinaryFn::Add, bin(BinaryFn::Mul, bin(BinaryFn::Mul, p, d), d), 1.0);
  };
  auto far = [&](const RawTensor& d) {  // ((A d - 5A) d + 8A) d - 4A
    RawTensor p = bin(BinaryFn::Sub, bin(BinaryFn::Mul, d, A), 5 * A);
    p = bin(BinaryFn::Add, bin(BinaryFn::Mul, p, d), 8 * A);
    return bin(BinaryFn::Sub, bin(BinaryFn::Mul, p, d), 4 * A);
  };
  RawTensor one = scalar_like(t, 1);
  return {far(bin(BinaryFn::Add, t, 1.0)), near(t), near(bin(BinaryFn::Sub, one, t)),
          far(bin(BinaryFn::Sub, scalar_like(t, 2), t))};
}

Outputs grid_sample(NodeContext& c) {
  RawTensor x = c.tensor(0), grid = ops::cast(c.tensor(1), x.dtype());
  GridAttrs a{c.attr_string("mode", "bilinear"), c.attr_string("padding_mode", "zeros"),
              c.attr_int("align_corners", 0) != 0};
  auto d = x.shape().vector();
  int64_t N = d[0], C = d[1], H = d[2], W = d[3];
  int64_t Ho = grid.shape()[1], Wo = grid.shape()[2];
  RawTensor gx = ops::squeeze(ops::narrow(grid, 3, 0, 1), 3);  // [N, Ho, Wo]
  RawTensor gy = ops::squeeze(ops::narrow(grid, 3, 1, 1), 3);
  RawTensor px = unnormalize(gx, W, a.align), py = unnormalize(gy, H, a.align);
  if (a.mode != "bicubic") {
    px = pad_coord(px, W, a);
    py = pad_coord(py, H, a);
  }
  RawTensor planes = ops::reshape(x, {N, C, H * W});
  // One tap: the input at rows iy, columns ix (float tensors of integers), times its weight.
  auto read = [&](const RawTensor& iy, const RawTensor& ix, RawTensor w) {
    Tap ty = tap(iy, H, a), tx = tap(ix, W, a);
    RawTensor lin =
        bin(BinaryFn::Add, bin(BinaryFn::Mul, ty.index, static_cast<double>(W)), tx.index);
    lin = ops::expand(ops::reshape(lin, {N, 1, Ho * Wo}), {N, C, Ho * Wo});
    RawTensor v = ops::reshape(ops::gather(planes, 2, lin), {N, C, Ho, Wo});
    RawTensor ok = ops::cast(bin(BinaryFn::LogicalAnd, ty.inside, tx.inside), x.dtype());
    w = ops::unsqueeze_dim(bin(BinaryFn::Mul, w, ok), 1);
    return bin(BinaryFn::Mul, v, w);
  };
  if (a.mode == "nearest") {
    // Round half to even, as the reference's rounding does.
    return {
        Value::tensor(read(un(UnaryFn::Round, py), un(UnaryFn::Round, px), scalar_like(px, 1)))};
  }
  RawTensor x0 = un(UnaryFn::Floor, px), y0 = un(UnaryFn::Floor, py);
  RawTensor tx = bin(BinaryFn::Sub, px, x0), ty = bin(BinaryFn::Sub, py, y0);
  std::vector<RawTensor> wx, wy;
  int first = 0, taps = 2;
  if (a.mode == "bicubic") {
    wx = cubic_weights(tx);
    wy = cubic_weights(ty);
    first = -1;
    taps = 4;
  } else {
    wx = {bin(BinaryFn::Sub, scalar_like(tx, 1), tx), tx};
    wy = {bin(BinaryFn::Sub, scalar_like(ty, 1), ty), ty};
  }
  RawTensor y;
  for (int i = 0; i < taps; ++i) {
    for (int j = 0; j < taps; ++j) {
      RawTensor iy = bin(BinaryFn::Add, y0, static_cast<double>(first + i));
      RawTensor ix = bin(BinaryFn::Add, x0, static_cast<double>(first + j));
      RawTensor part = read(iy, ix, bin(BinaryFn::Mul, wy[i], wx[j]));
      y = y.defined() ? bin(BinaryFn::Add, y, part) : part;
    }
  }
  return {Value::tensor(y)};
}

std::string check_grid_sample(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "mode" && a.s() != "bilinear" && a.s() != "nearest" && a.s() != "bicubic") {
      return "mode '" + a.s() + "' not supported";
    }
  }
  return "";
}

}  // namespace

void register_grid_sample(Registry& r) {
  r.add("GridSample", {grid_sample, {"align_corners", "mode", "padding_mode"}, check_grid_sample});
}

}  // namespace ember::onnx_import
