// Resampling: interpolation as index selections and weighted sums, one spatial dim at a time
// (nearest, linear and cubic are separable); unfold as the stacked views of every kernel
// offset; pixel shuffle as a reshape and a permutation.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "frontend/detail/primitives.h"
#include "frontend/module_ops.h"
#include "frontend/ops.h"
#include "frontend/tensor_data.h"
#include "ir/builder.h"

namespace ember::ops {
namespace {

using ir::BinaryFn;

[[noreturn]] void fail(const char* op, const std::string& msg) {
  throw Error(absl::StrCat(op, ": ", msg));
}

// Source coordinate of output position o (PyTorch's rules: align_corners maps the corner
// pixels' centres onto each other, otherwise the pixel areas).
double source(int64_t o, int64_t in, int64_t out, bool align_corners, bool clamp_low) {
  if (align_corners) {
    return out > 1
               ? static_cast<double>(o) * static_cast<double>(in - 1) / static_cast<double>(out - 1)
               : 0.0;
  }
  double s =
      (static_cast<double>(o) + 0.5) * static_cast<double>(in) / static_cast<double>(out) - 0.5;
  return clamp_low ? std::max(s, 0.0) : s;
}

// Keys' cubic convolution weights with a = -0.75 for taps at -1, 0, 1, 2 from floor(src).
std::array<double, 4> cubic_weights(double t) {
  constexpr double A = -0.75;
  auto near = [](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto far = [](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

// The taps along one dim: out[o] = sum_j weight[j][o] * in[index[j][o]].
struct Taps {
  std::vector<std::vector<int32_t>> index;
  std::vector<std::vector<double>> weight;  // empty: a plain selection (nearest)
};

Taps taps(InterpolateMode mode, int64_t in, int64_t out, bool align_corners) {
  Taps t;
  auto clamp = [&](int64_t i) { return static_cast<int32_t>(std::clamp<int64_t>(i, 0, in - 1)); };
  const int n = mode == InterpolateMode::Nearest ? 1 : mode == InterpolateMode::Bilinear ? 2 : 4;
  t.index.assign(n, std::vector<int32_t>(out));
  if (mode != InterpolateMode::Nearest) t.weight.assign(n, std::vector<double>(out));
  for (int64_t o = 0; o < out; ++o) {
    if (mode == InterpolateMode::Nearest) {
      const double scale = static_cast<double>(in) / static_cast<double>(out);
      t.index[0][o] = clamp(static_cast<int64_t>(std::floor(static_cast<double>(o) * scale)));
    } else if (mode == InterpolateMode::Bilinear) {
      const double s = source(o, in, out, align_corners, true);
      const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(std::floor(s)), in - 1);
      const double l = s - static_cast<double>(i0);
      t.index[0][o] = clamp(i0);
      t.index[1][o] = clamp(i0 + 1);
      t.weight[0][o] = 1 - l;
      t.weight[1][o] = l;
    } else {
      const double s = source(o, in, out, align_corners, false);
      const int64_t i = static_cast<int64_t>(std::floor(s));
      const auto w = cubic_weights(s - static_cast<double>(i));
      for (int j = 0; j < 4; ++j) {
        t.index[j][o] = clamp(i - 1 + j);
        t.weight[j][o] = w[j];
      }
    }
  }
  return t;
}

RawTensor resample_dim(const RawTensor& x, int dim, int64_t out, InterpolateMode mode,
                       bool align_corners) {
  const Taps t = taps(mode, x.shape()[dim], out, align_corners);
  RawTensor y;
  for (size_t j = 0; j < t.index.size(); ++j) {
    RawTensor v = select(x, dim, prim::from_data(TensorData(t.index[j]), x.device()));
    if (!t.weight.empty()) {
      std::vector<int64_t> dims(x.rank(), 1);
      dims[dim] = out;
      RawTensor w =
          prim::cast(prim::from_data(TensorData(t.weight[j], Shape(dims)), x.device()), x.dtype());
      v = prim::binary(BinaryFn::Mul, v, w);
    }
    y = y.defined() ? prim::binary(BinaryFn::Add, y, v) : v;
  }
  return y;
}

}  // namespace

RawTensor interpolate(const char* op, const RawTensor& x, const std::vector<int64_t>& out,
                      InterpolateMode mode, bool align_corners) {
  ir::OpScope scope(op);
  const int sr = static_cast<int>(out.size());
  if (x.rank() != sr + 2 || !is_float(x.dtype())) {
    fail(op, absl::StrCat("needs a float tensor of rank ", sr + 2, " for ", sr,
                          " output sizes, got ", x.type().to_string()));
  }
  RawTensor y = x;
  for (int d = 0; d < sr; ++d) {
    if (out[d] < 1) fail(op, absl::StrCat("output sizes must be >= 1, got ", out[d]));
    if (x.shape()[d + 2] < 1) fail(op, "input has an empty spatial dim: " + x.type().to_string());
    if (out[d] != x.shape()[d + 2] || mode == InterpolateMode::Bicubic || align_corners) {
      y = resample_dim(y, d + 2, out[d], mode, align_corners);
    }
  }
  return y;
}

RawTensor unfold4d(const RawTensor& x, const std::vector<int64_t>& kernel, const PoolArgs& args) {
  ir::OpScope scope("unfold4d");
  if (x.rank() != 4) fail("unfold4d", "needs a rank-4 input, got " + x.type().to_string());
  std::vector<int64_t> stride = args.stride.empty() ? std::vector<int64_t>{1, 1} : args.stride;
  std::vector<int64_t> pad = args.padding.empty() ? std::vector<int64_t>{0, 0} : args.padding;
  std::vector<int64_t> dil = args.dilation.empty() ? std::vector<int64_t>{1, 1} : args.dilation;
  if (kernel.size() != 2 || stride.size() != 2 || pad.size() != 2 || dil.size() != 2) {
    fail("unfold4d", "kernel_size, stride, padding and dilation need 2 values each");
  }
  std::vector<int64_t> out(2);
  for (int d = 0; d < 2; ++d) {
    const int64_t extent = dil[d] * (kernel[d] - 1) + 1, padded = x.shape()[d + 2] + 2 * pad[d];
    if (kernel[d] < 1 || stride[d] < 1 || dil[d] < 1 || pad[d] < 0 || padded < extent) {
      fail("unfold4d",
           absl::StrCat("kernel extent ", extent, " does not fit the padded input ", padded,
                        " (or a size, stride or dilation is < 1): ", x.type().to_string()));
    }
    out[d] = (padded - extent) / stride[d] + 1;
  }
  RawTensor xp =
      prim::pad(x, {0, 0, pad[0], pad[1]}, {0, 0, pad[0], pad[1]}, ir::Scalar::from_double(0));
  std::vector<RawTensor> views;
  for (int64_t i = 0; i < kernel[0]; ++i) {
    for (int64_t j = 0; j < kernel[1]; ++j) {
      views.push_back(prim::slice(xp, {0, 0, i * dil[0], j * dil[1]},
                                  {x.shape()[0], x.shape()[1], out[0], out[1]},
                                  {1, 1, stride[0], stride[1]}));
    }
  }
  RawTensor stacked = stack(views, 2);  // [N, C, kh * kw, oh, ow]
  return prim::reshape(
      stacked, Shape({x.shape()[0], x.shape()[1] * kernel[0] * kernel[1], out[0] * out[1]}));
}

RawTensor pixel_shuffle(const RawTensor& x, int64_t r) {
  ir::OpScope scope("pixel_shuffle");
  if (x.rank() != 4 || r < 1 || x.shape()[1] % (r * r) != 0) {
    fail("pixel_shuffle", absl::StrCat("needs [N, C, H, W] with C divisible by ", r, "^2, got ",
                                       x.type().to_string()));
  }
  const auto& s = x.shape();
  RawTensor y = prim::reshape(x, Shape({s[0], s[1] / (r * r), r, r, s[2], s[3]}));
  y = prim::permute(y, {0, 1, 4, 2, 5, 3});
  return prim::reshape(y, Shape({s[0], s[1] / (r * r), s[2] * r, s[3] * r}));
}

}  // namespace ember::ops
