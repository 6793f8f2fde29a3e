// Resize: separable along each resized axis. The source coordinates, taps and weights of every
// output position are computed on the host (they depend only on sizes and attributes); the
// tensor work is selects and a weighted sum, so it fuses and differentiates like any op.
#include <cmath>

#include "frontend/tensor.h"
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;

struct ResizeAttrs {
  std::string mode, transform, nearest;
  double cubic_a;
  bool exclude_outside;
  double extrapolation;
};

// The source coordinate of output position x along an axis of n -> m elements at scale s.
// ONNX computes align_corners with the unrounded output length n * s.
double source_coord(const ResizeAttrs& a, double x, int64_t n, int64_t m, double s, double roi0,
                    double roi1) {
  const std::string& t = a.transform;
  if (t == "asymmetric") return x / s;
  if (t == "align_corners") return m == 1 ? 0.0 : x * (n - 1) / (n * s - 1);
  if (t == "pytorch_half_pixel") return m > 1 ? (x + 0.5) / s - 0.5 : 0.0;
  if (t == "tf_half_pixel_for_nn") return (x + 0.5) / s;
  if (t == "tf_crop_and_resize") {
    return m > 1 ? roi0 * (n - 1) + x * (roi1 - roi0) * (n - 1) / static_cast<double>(m - 1)
                 : 0.5 * (roi0 + roi1) * (n - 1);
  }
  return (x + 0.5) / s - 0.5;  // half_pixel
}

int64_t nearest_index(const std::string& mode, double x) {
  double f = std::floor(x);
  bool half = x - f == 0.5;
  if (mode == "floor") return static_cast<int64_t>(f);
  if (mode == "ceil") return static_cast<int64_t>(std::ceil(x));
  if (mode == "round_prefer_ceil") return static_cast<int64_t>(half ? f + 1 : std::round(x));
  return static_cast<int64_t>(half ? f : std::round(x));  // round_prefer_floor
}

std::vector<double> cubic_coeffs(double t, double A) {
  auto far = [A](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };  // 1<|d|<2
  auto near = [A](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };       // |d|<=1
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

// Taps of one axis: tap k of output j reads index[k][j] with weight weight[k][j].
struct Taps {
  std::vector<std::vector<int64_t>> index;
  std::vector<std::vector<double>> weight;
  std::vector<double> inside;  // 0 where tf_crop_and_resize extrapolates
};

Taps axis_taps(const ResizeAttrs& a, int64_t n, int64_t m, double s, double r0, double r1) {
  int k = a.mode == "nearest" ? 1 : a.mode == "linear" ? 2 : 4;
  Taps t{std::vector<std::vector<int64_t>>(k, std::vector<int64_t>(m)),
         std::vector<std::vector<double>>(k, std::vector<double>(m)), std::vector<double>(m, 1)};
  for (int64_t j = 0; j < m; ++j) {
    double x = source_coord(a, static_cast<double>(j), n, m, s, r0, r1);
    if (a.transform == "tf_crop_and_resize" && (x < 0 || x > n - 1)) t.inside[j] = 0;
    auto clamp = [n](int64_t i) { return std::clamp<int64_t>(i, 0, n - 1); };
    if (k == 1) {
      t.index[0][j] = clamp(nearest_index(a.nearest, x));
      t.weight[0][j] = 1;
      continue;
    }
    int64_t x0 = static_cast<int64_t>(std::floor(x));
    double frac = x - x0;
    std::vector<double> w =
        k == 2 ? std::vector<double>{1 - frac, frac} : cubic_coeffs(frac, a.cubic_a);
    int64_t first = k == 2 ? x0 : x0 - 1;
    double total = 0;
    for (int i = 0; i < k; ++i) {
      int64_t src = first + i;
      if (a.exclude_outside && (src < 0 || src >= n)) w[i] = 0;
      total += w[i];
    }
    for (int i = 0; i < k; ++i) {
      t.index[i][j] = clamp(first + i);
      t.weight[i][j] = a.exclude_outside && total != 0 ? w[i] / total : w[i];
    }
  }
  return t;
}

RawTensor along(const std::vector<double>& v, int axis, int rank, DType dt, const Device& dev) {
  std::vector<int64_t> view(rank, 1);
  view[axis] = static_cast<int64_t>(v.size());
  RawTensor t = detail::raw_from_data(TensorData(v), dev);
  return ops::reshape(ops::cast(t, dt), view);
}

RawTensor resize_axis(const RawTensor& x, int axis, const Taps& t, const ResizeAttrs& a) {
  RawTensor y;
  for (size_t k = 0; k < t.index.size(); ++k) {
    RawTensor idx = detail::raw_from_data(TensorData(t.index[k]), x.device());
    RawTensor part = ops::select(x, axis, idx);
    if (t.index.size() > 1) {
      part = bin(BinaryFn::Mul, part, along(t.weight[k], axis, x.rank(), x.dtype(), x.device()));
    }
    y = y.defined() ? bin(BinaryFn::Add, y, part) : part;
  }
  if (a.transform == "tf_crop_and_resize") {
    RawTensor in = along(t.inside, axis, x.rank(), x.dtype(), x.device());
    RawTensor out = bin(BinaryFn::Mul, bin(BinaryFn::Sub, scalar_like(in, 1), in), a.extrapolation);
    y = bin(BinaryFn::Add, bin(BinaryFn::Mul, y, in), out);
  }
  return y;
}

Outputs resize(NodeContext& c) {
  RawTensor x = c.tensor(0);
  std::vector<int64_t> dims = c.input(0).dims();
  int rank = static_cast<int>(dims.size());
  ResizeAttrs a{c.attr_string("mode", "nearest"),
                c.attr_string("coordinate_transformation_mode", "half_pixel"),
                c.attr_string("nearest_mode", "round_prefer_floor"),
                c.attr_float("cubic_coeff_a", -0.75f),
                c.attr_int("exclude_outside", 0) != 0,
                c.attr_float("extrapolation_value", 0.0f)};
  std::vector<double> scales(rank, 1.0), roi;
  std::vector<int64_t> sizes(dims);
  if (c.has_input(3) && c.input(3).numel() > 0) {
    sizes = c.ints_input(3);
    for (int d = 0; d < rank; ++d) scales[d] = static_cast<double>(sizes[d]) / dims[d];
  } else if (c.has_input(2) && c.input(2).numel() > 0) {
    scales = c.input(2).data().to_vec<double>();
    // ONNX scales are float32: the output size is floor(n * scale) in that precision.
    for (int d = 0; d < rank; ++d) {
      sizes[d] = static_cast<int64_t>(std::floor(dims[d] * static_cast<float>(scales[d])));
    }
  }
  if (c.has_input(1) && c.input(1).numel() > 0) roi = c.input(1).data().to_vec<double>();
  for (int d = 0; d < rank; ++d) {
    bool crop = a.transform == "tf_crop_and_resize";
    if (sizes[d] == dims[d] && scales[d] == 1.0 && !crop) continue;
    double r0 = crop ? roi.at(d) : 0, r1 = crop ? roi.at(d + rank) : 1;
    x = resize_axis(x, d, axis_taps(a, dims[d], sizes[d], scales[d], r0, r1), a);
  }
  return same_rank(c, x);
}

std::string check_resize(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "antialias" && a.i() != 0) return "antialias not supported";
    if (a.name() == "keep_aspect_ratio_policy" && a.s() != "stretch") {
      return "keep_aspect_ratio_policy '" + a.s() + "' not supported";
    }
    if (a.name() == "axes") return "attribute 'axes' not supported";
  }
  return "";
}

}  // namespace

void register_resample(Registry& r) {
  r.add("Resize", {resize,
                   {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                    "exclude_outside", "extrapolation_value", "antialias",
                    "keep_aspect_ratio_policy", "axes"},
                   check_resize});
}

}  // namespace ember::onnx_import
