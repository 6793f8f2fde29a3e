// RoiAlign: each region of interest pooled to a fixed grid of bilinear samples. The sample
// positions depend on the regions' coordinates, read on the host; the samples are gathers from
// the input and a weighted sum (avg) or maximum (max), which the tape sees.
#include <array>
#include <cmath>
#include <limits>

#include "frontend/tensor.h"
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;

// The four taps of one bilinear sample: flat indices into an H x W plane and their weights
// (all zero outside the plane, as ONNX's reference does).
void bilinear_taps(double y, double x, int64_t h, int64_t w, int64_t* idx, double* wt) {
  if (y < -1.0 || y > h || x < -1.0 || x > w) {
    for (int i = 0; i < 4; ++i) idx[i] = 0, wt[i] = 0;
    return;
  }
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= h - 1) y0 = y1 = h - 1, y = static_cast<double>(y0);
  if (x0 >= w - 1) x0 = x1 = w - 1, x = static_cast<double>(x0);
  double ly = y - y0, lx = x - x0, hy = 1 - ly, hx = 1 - lx;
  int64_t i[4] = {y0 * w + x0, y0 * w + x1, y1 * w + x0, y1 * w + x1};
  double v[4] = {hy * hx, hy * lx, ly * hx, ly * lx};
  for (int k = 0; k < 4; ++k) idx[k] = i[k], wt[k] = v[k];
}

struct Samples {
  std::vector<int64_t> index;  // [rois, cells * grid * 4]
  std::vector<double> weight;  // the same; 0 for padding samples
  std::vector<uint8_t> valid;  // [rois, cells * grid]: 0 for padding samples (max mode)
  std::vector<double> count;   // [rois]: samples per cell (avg mode)
  int64_t grid = 0;            // samples per cell, the most any region has
};

Samples roi_samples(NodeContext& c, const std::vector<double>& rois, int64_t n_rois, int64_t h,
                    int64_t w) {
  int64_t oh = c.attr_int("output_height", 1), ow = c.attr_int("output_width", 1);
  int64_t ratio = c.attr_int("sampling_ratio", 0);
  double scale = c.attr_float("spatial_scale", 1.0f);
  bool half = c.attr_string("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  double off = half ? 0.5 : 0.0;
  std::vector<std::array<double, 6>> geo(n_rois);  // start y, x, bin h, w, grid h, w
  Samples s;
  for (int64_t r = 0; r < n_rois; ++r) {
    const double* b = &rois[4 * r];
    double x1 = b[0] * scale - off, y1 = b[1] * scale - off;
    double rw = b[2] * scale - off - x1, rh = b[3] * scale - off - y1;
    if (!half) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    double gh = ratio > 0 ? ratio : std::ceil(rh / oh), gw = ratio > 0 ? ratio : std::ceil(rw / ow);
    geo[r] = {y1, x1, rh / oh, rw / ow, gh, gw};
    s.grid = std::max(s.grid, static_cast<int64_t>(gh * gw));
    s.count.push_back(std::max(gh * gw, 1.0));
  }
  int64_t per_roi = oh * ow * s.grid;
  s.index.assign(n_rois * per_roi * 4, 0);
  s.weight.assign(n_rois * per_roi * 4, 0);
  s.valid.assign(n_rois * per_roi, 0);
  for (int64_t r = 0; r < n_rois; ++r) {
    auto [y1, x1, bh, bw, gh, gw] = geo[r];
    for (int64_t cell = 0; cell < oh * ow; ++cell) {
      int64_t ph = cell / ow, pw = cell % ow, k = 0;
      for (int64_t iy = 0; iy < gh; ++iy) {
        for (int64_t ix = 0; ix < gw; ++ix, ++k) {
          double y = y1 + ph * bh + (iy + 0.5) * bh / gh, x = x1 + pw * bw + (ix + 0.5) * bw / gw;
          int64_t at = (r * oh * ow + cell) * s.grid + k;
          bilinear_taps(y, x, h, w, &s.index[4 * at], &s.weight[4 * at]);
          s.valid[at] = 1;
        }
      }
    }
  }
  return s;
}

Outputs roi_align(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int64_t n = x.shape()[0], ch = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
  std::vector<double> rois = c.input(1).data().to_vec<double>();
  int64_t n_rois = c.input(1).dims()[0];
  Samples s = roi_samples(c, rois, n_rois, h, w);
  int64_t oh = c.attr_int("output_height", 1), ow = c.attr_int("output_width", 1);
  int64_t taps = oh * ow * s.grid * 4;
  const Device& dev = x.device();
  // Each region reads its batch entry's planes: [rois, C, H * W].
  RawTensor batch = ops::cast(c.tensor(2), DType::I64);
  RawTensor planes = ops::select(ops::reshape(x, {n, ch, h * w}), 0, batch);
  RawTensor idx = detail::raw_from_data(TensorData(s.index, Shape{n_rois, 1, taps}), dev);
  RawTensor v = ops::gather(planes, 2, ops::expand(idx, {n_rois, ch, taps}));
  RawTensor wt = ops::cast(detail::raw_from_data(TensorData(s.weight, Shape{n_rois, 1, taps}), dev),
                           x.dtype());
  RawTensor tapped = ops::reshape(bin(BinaryFn::Mul, v, wt), {n_rois, ch, oh * ow, s.grid, 4});
  RawTensor y;
  if (c.attr_string("mode", "avg") == "max") {
    // ONNX's max mode: the largest weighted tap of the largest sample (padding samples excluded).
    RawTensor m = ops::squeeze(ops::reduce_dim(ir::ReduceFn::Max, tapped, 4), 4);
    RawTensor ok = ops::cast(
        detail::raw_from_data(TensorData(s.valid, Shape{n_rois, 1, oh * ow, s.grid}), dev),
        DType::Bool);
    m = where(ok, m, scalar_like(m, -std::numeric_limits<double>::infinity()));
    y = ops::squeeze(ops::reduce_dim(ir::ReduceFn::Max, m, 3), 3);
  } else {
    RawTensor sum = ops::reshape(tapped, {n_rois, ch, oh * ow, s.grid * 4});
    sum = ops::squeeze(ops::reduce_dim(ir::ReduceFn::Sum, sum, 3), 3);
    RawTensor cnt =
        ops::cast(detail::raw_from_data(TensorData(s.count, Shape{n_rois, 1, 1}), dev), x.dtype());
    y = bin(BinaryFn::Div, sum, cnt);
  }
  return {Value::tensor(ops::reshape(y, {n_rois, ch, oh, ow}))};
}

}  // namespace

void register_roi_align(Registry& r) {
  r.add("RoiAlign", {roi_align,
                     {"coordinate_transformation_mode", "mode", "output_height", "output_width",
                      "sampling_ratio", "spatial_scale"}});
}

}  // namespace ember::onnx_import
