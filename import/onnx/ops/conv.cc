// Conv, ConvTranspose and pooling. ONNX pads may differ before and after a dim; the frontend's
// ops pad symmetrically, so asymmetric pads are applied to the input first.
#include <cmath>
#include <limits>

#include "frontend/module_ops.h"
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;

struct Window {
  std::vector<int64_t> kernel, stride, dilation, begin, end;  // per spatial dim
};

// The window of a conv or pool node over spatial dims `in`, with auto_pad resolved.
Window window(NodeContext& c, const std::vector<int64_t>& kernel, const std::vector<int64_t>& in) {
  size_t n = in.size();
  Window w;
  w.kernel = kernel;
  w.stride = c.attr_ints("strides", std::vector<int64_t>(n, 1));
  w.dilation = c.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  w.begin.assign(pads.begin(), pads.begin() + n);
  w.end.assign(pads.begin() + n, pads.end());
  std::string autopad = c.attr_string("auto_pad", "NOTSET");
  if (autopad == "VALID") {
    w.begin.assign(n, 0);
    w.end.assign(n, 0);
  } else if (autopad == "SAME_UPPER" || autopad == "SAME_LOWER") {
    for (size_t d = 0; d < n; ++d) {
      int64_t out = (in[d] + w.stride[d] - 1) / w.stride[d];
      int64_t span = (kernel[d] - 1) * w.dilation[d] + 1;
      int64_t total = std::max<int64_t>((out - 1) * w.stride[d] + span - in[d], 0);
      int64_t small = total / 2;
      w.begin[d] = autopad == "SAME_UPPER" ? small : total - small;
      w.end[d] = total - w.begin[d];
    }
  }
  return w;
}

bool symmetric(const Window& w) { return w.begin == w.end; }

// Whether the frontend's pools take the pads as they are: symmetric and at most half the kernel
// (PyTorch's rule); otherwise the input is padded first.
bool pool_pads_ok(const Window& w) {
  if (!symmetric(w)) return false;
  for (size_t d = 0; d < w.begin.size(); ++d) {
    if (2 * w.begin[d] > (w.kernel[d] - 1) * w.dilation[d] + 1) return false;
  }
  return true;
}

// x padded by the window's pads (spatial dims from 2), with `value`.
RawTensor pad_spatial(const RawTensor& x, const Window& w, double value) {
  std::vector<std::pair<int64_t, int64_t>> p;
  for (size_t i = w.begin.size(); i-- > 0;) p.push_back({w.begin[i], w.end[i]});
  Scalar s = is_float(x.dtype()) ? Scalar(value) : Scalar(static_cast<int64_t>(value));
  return ops::pad(x, p, s);
}

std::vector<int64_t> spatial(const RawTensor& x) {
  return std::vector<int64_t>(x.shape().dims.begin() + 2, x.shape().dims.end());
}

Outputs conv(NodeContext& c) {
  RawTensor x = c.tensor(0), w = c.tensor(1);
  std::vector<int64_t> kernel = c.attr_ints("kernel_shape", spatial(w));
  Window win = window(c, kernel, spatial(x));
  ops::ConvArgs args{win.stride, win.begin, win.dilation, c.attr_int("group", 1), {}};
  if (!symmetric(win)) {
    x = pad_spatial(x, win, 0.0);
    args.padding.assign(kernel.size(), 0);
  }
  std::optional<RawTensor> bias;
  if (c.has_input(2)) bias = c.tensor(2);
  return {Value::tensor(ops::conv("Conv", x, w, bias, args))};
}

// Transposed convolution with no padding, then the pads cropped from the result.
Outputs conv_transpose(NodeContext& c) {
  RawTensor x = c.tensor(0), w = c.tensor(1);
  std::vector<int64_t> in = spatial(x), kernel = c.attr_ints("kernel_shape", spatial(w));
  size_t n = in.size();
  std::vector<int64_t> stride = c.attr_ints("strides", std::vector<int64_t>(n, 1));
  std::vector<int64_t> dil = c.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> outpad = c.attr_ints("output_padding", std::vector<int64_t>(n, 0));
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  std::vector<int64_t> full(n);
  for (size_t d = 0; d < n; ++d) {
    full[d] = stride[d] * (in[d] - 1) + outpad[d] + (kernel[d] - 1) * dil[d] + 1;
  }
  std::string autopad = c.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> wanted = c.attr_ints("output_shape");
  if (!wanted.empty() || autopad == "SAME_UPPER" || autopad == "SAME_LOWER") {
    for (size_t d = 0; d < n; ++d) {
      int64_t out = !wanted.empty() ? wanted[wanted.size() - n + d] : in[d] * stride[d];
      int64_t total = full[d] - out;
      if (total < 0) {
        // A larger output than the full convolution: the extra positions come at the end.
        outpad[d] -= total;
        full[d] -= total;
        total = 0;
      }
      // SAME_UPPER (and an output_shape) put the larger half of the padding at the end.
      int64_t small = total / 2;
      pads[d] = autopad == "SAME_LOWER" ? total - small : small;
      pads[d + n] = total - pads[d];
    }
  }
  ops::ConvArgs args{stride, std::vector<int64_t>(n, 0), dil, c.attr_int("group", 1), outpad};
  std::optional<RawTensor> bias;
  if (c.has_input(2)) bias = c.tensor(2);
  RawTensor y = ops::conv_transpose("ConvTranspose", x, w, bias, args);
  std::vector<Range> crop(y.rank(), Range::all());
  for (size_t d = 0; d < n; ++d) crop[d + 2] = Range(pads[d], full[d] - pads[d + n]);
  return {Value::tensor(ops::slice(y, crop))};
}

ops::PoolArgs pool_args(NodeContext& c, const Window& w) {
  ops::PoolArgs a;
  a.kernel = w.kernel;
  a.stride = w.stride;
  a.dilation = w.dilation;
  a.padding = pool_pads_ok(w) ? w.begin : std::vector<int64_t>(w.kernel.size(), 0);
  a.ceil_mode = c.attr_int("ceil_mode", 0);
  a.count_include_pad = c.attr_int("count_include_pad", 0);
  return a;
}

// Indices within each input plane as indices into the whole input: row-major, or column-major
// within 2-D planes (storage_order 1).
RawTensor global_indices(RawTensor idx, const Shape& in, bool column_major) {
  auto d = in.vector();
  int64_t plane = 1;
  for (size_t i = 2; i < d.size(); ++i) plane *= d[i];
  idx = ops::cast(idx, DType::I64);
  if (column_major) {
    int64_t h = d[2], w = d[3];
    RawTensor row = bin(BinaryFn::Div, idx, static_cast<double>(w));
    RawTensor col = bin(BinaryFn::Sub, idx, bin(BinaryFn::Mul, row, static_cast<double>(w)));
    idx = bin(BinaryFn::Add, bin(BinaryFn::Mul, col, static_cast<double>(h)), row);
  }
  std::vector<int64_t> view(d.size(), 1);
  view[0] = d[0];
  view[1] = d[1];
  RawTensor base = ops::arange(0, d[0] * d[1], 1, DType::I64, idx.device());
  base = bin(BinaryFn::Mul, ops::reshape(base, view), static_cast<double>(plane));
  return bin(BinaryFn::Add, idx, base);
}

Outputs max_pool(NodeContext& c) {
  RawTensor x = c.tensor(0);
  DType dt = x.dtype();
  // The frontend pools floats: integers (exact in f64) go through f64 and back.
  if (!is_float(dt)) x = ops::cast(x, DType::F64);
  Window w = window(c, c.attr_ints("kernel_shape"), spatial(x));
  ops::PoolArgs a = pool_args(c, w);
  bool prepad = !pool_pads_ok(w);
  if (prepad) x = pad_spatial(x, w, -std::numeric_limits<double>::infinity());
  if (!c.has_output(1)) return {Value::tensor(ops::cast(ops::max_pool("MaxPool", x, a), dt))};
  if (prepad) c.fail("indices with pads the frontend's pool cannot take are not supported");
  RawTensor idx;
  RawTensor y = ops::max_pool("MaxPool", x, a, &idx);
  return {Value::tensor(ops::cast(y, dt)),
          Value::tensor(global_indices(idx, x.shape(), c.attr_int("storage_order", 0) != 0))};
}

Outputs avg_pool(NodeContext& c) {
  RawTensor x = c.tensor(0);
  Window w = window(c, c.attr_ints("kernel_shape"), spatial(x));
  ops::PoolArgs a = pool_args(c, w);
  if (pool_pads_ok(w)) return {Value::tensor(ops::avg_pool("AveragePool", x, a))};
  // Asymmetric pads: zero-padded sums over the count of elements each window averages.
  RawTensor xp = pad_spatial(x, w, 0.0);
  a.count_include_pad = true;
  RawTensor sum = ops::avg_pool("AveragePool", xp, a);
  if (c.attr_int("count_include_pad", 0)) return {Value::tensor(sum)};
  RawTensor ones = pad_spatial(ops::ones(x.shape(), x.dtype(), x.device()), w, 0.0);
  RawTensor frac = ops::avg_pool("AveragePool", ones, a);
  return {Value::tensor(bin(BinaryFn::Div, sum, frac))};
}

Outputs global_pool(NodeContext& c, bool max) {
  RawTensor x = c.tensor(0);
  for (int d = 2; d < x.rank(); ++d) {
    x = max ? ops::reduce_dim(ir::ReduceFn::Max, x, d) : ops::mean_dim(x, d);
  }
  return {Value::tensor(x)};
}

// (sum over each window of |x|^p)^(1/p): an average pool of |x|^p (zero padding counted)
// times the window's size.
Outputs lp_pool(NodeContext& c) {
  RawTensor x = c.tensor(0);
  double p = static_cast<double>(c.attr_int("p", 2));
  Window w = window(c, c.attr_ints("kernel_shape"), spatial(x));
  ops::PoolArgs a = pool_args(c, w);
  a.count_include_pad = true;
  RawTensor xp = bin(BinaryFn::Pow, ops::unary(ir::UnaryFn::Abs, x), p);
  if (!pool_pads_ok(w)) xp = pad_spatial(xp, w, 0.0);
  double n = 1;
  for (int64_t k : w.kernel) n *= static_cast<double>(k);
  RawTensor s = bin(BinaryFn::Mul, ops::avg_pool("LpPool", xp, a), n);
  return {Value::tensor(bin(BinaryFn::Pow, s, 1.0 / p))};
}

Outputs global_lp_pool(NodeContext& c) {
  RawTensor x = c.tensor(0);
  double p = static_cast<double>(c.attr_int("p", 2));
  RawTensor y = bin(BinaryFn::Pow, ops::unary(ir::UnaryFn::Abs, x), p);
  for (int d = 2; d < x.rank(); ++d) y = ops::reduce_dim(ir::ReduceFn::Sum, y, d);
  return {Value::tensor(bin(BinaryFn::Pow, y, 1.0 / p))};
}

// Values placed at their (whole-tensor) indices in zeros of the unpooled shape.
Outputs max_unpool(NodeContext& c) {
  RawTensor x = c.tensor(0);
  std::vector<int64_t> in = spatial(x), out_dims = x.shape().vector();
  std::vector<int64_t> kernel = c.attr_ints("kernel_shape");
  size_t n = in.size();
  std::vector<int64_t> stride = c.attr_ints("strides", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  for (size_t d = 0; d < n; ++d) {
    out_dims[d + 2] = (in[d] - 1) * stride[d] + kernel[d] - pads[d] - pads[d + n];
  }
  int64_t total = Shape(out_dims).numel();
  RawTensor flat_x = ops::reshape(x, {x.shape().numel()});
  RawTensor flat_i = ops::reshape(ops::cast(c.tensor(1), DType::I64), {x.shape().numel()});
  RawTensor y =
      ops::select_assign(ops::zeros(Shape{total}, x.dtype(), x.device()), 0, flat_i, flat_x);
  y = ops::reshape(y, out_dims);
  // A larger output_shape keeps the indices' coordinates (they refer to the default shape): the
  // extra positions are zeros at the end of each dim.
  if (c.has_input(2)) {
    std::vector<int64_t> wanted = c.ints_input(2);
    std::vector<std::pair<int64_t, int64_t>> p;
    for (size_t d = wanted.size(); d-- > 0;) p.push_back({0, wanted[d] - out_dims[d]});
    y = ops::pad(y, p, Scalar(0.0));
  }
  return {Value::tensor(y)};
}

std::string check_pool(const ::onnx::NodeProto& n, int) {
  int kernel_dims = 0;
  bool column_major = false;
  for (const auto& a : n.attribute()) {
    if (a.name() == "storage_order") column_major = a.i() != 0;
    if (a.name() == "kernel_shape") kernel_dims = a.ints_size();
  }
  if (column_major && kernel_dims != 2) return "storage_order 1 needs 2-D pooling";
  return "";
}

}  // namespace

void register_conv(Registry& r) {
  r.add("Conv", {conv, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}});
  r.add("ConvTranspose", {conv_transpose,
                          {"auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                           "output_shape", "pads", "strides"}});
  r.add("MaxPool",
        {max_pool,
         {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"},
         check_pool});
  r.add("AveragePool",
        {avg_pool,
         {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"}});
  r.add("LpPool", {lp_pool, {"auto_pad", "kernel_shape", "p", "pads", "strides"}});
  r.add("GlobalLpPool", {global_lp_pool, {"p"}});
  r.add("MaxUnpool", {max_unpool, {"kernel_shape", "pads", "strides"}});
  r.add("GlobalAveragePool", {[](NodeContext& c) { return global_pool(c, false); }, {}});
  r.add("GlobalMaxPool", {[](NodeContext& c) { return global_pool(c, true); }, {}});
}

}  // namespace ember::onnx_import
