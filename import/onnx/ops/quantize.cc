// Linear quantization (uint8; Ember has no int8): QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear, and the integer products MatMulInteger, ConvInteger, QLinearMatMul,
// QLinearConv. Integer sums are exact in f64, which carries the products.
#include "frontend/module_ops.h"
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

// A scale or zero point: a scalar, or per-slice values along `axis` of a rank-`rank` tensor.
RawTensor along_axis(const RawTensor& t, int64_t numel, int axis, int rank) {
  if (numel == 1 || rank == 0) return t;
  std::vector<int64_t> view(rank, 1);
  view[axis] = numel;
  return ops::reshape(t, view);
}

// The axis of per-slice scales: only checked when a scale has several values.
int quant_axis(NodeContext& c, int rank) {
  if (rank == 0 || c.input(1).numel() == 1) return 0;
  return static_cast<int>(c.axis(c.attr_int("axis", 1), rank));
}

RawTensor as_f64(const RawTensor& t) { return ops::cast(t, DType::F64); }

// round-half-even(x) + zero point, saturated to uint8 [0, 255].
RawTensor saturate_u8(const RawTensor& x) {
  return ops::cast(ops::clamp(un(UnaryFn::Round, x), Scalar(0.0), Scalar(255.0)), DType::U8);
}

// x / scale is rounded in x's precision (as ONNX's reference does), then the zero point added.
Outputs quantize(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int rank = c.input(0).rank();
  int axis = quant_axis(c, rank);
  RawTensor scale = along_axis(ops::cast(c.tensor(1), x.dtype()), c.input(1).numel(), axis, rank);
  RawTensor y = as_f64(un(UnaryFn::Round, bin(BinaryFn::Div, x, scale)));
  if (c.has_input(2)) {
    y = bin(BinaryFn::Add, y, along_axis(as_f64(c.tensor(2)), c.input(2).numel(), axis, rank));
  }
  return same_rank(c, saturate_u8(y));
}

Outputs dequantize(NodeContext& c) {
  RawTensor x = as_f64(c.tensor(0));
  int rank = c.input(0).rank();
  int axis = quant_axis(c, rank);
  if (c.has_input(2)) {
    x = bin(BinaryFn::Sub, x, along_axis(as_f64(c.tensor(2)), c.input(2).numel(), axis, rank));
  }
  RawTensor scale = c.tensor(1);
  RawTensor y = bin(BinaryFn::Mul, x, along_axis(as_f64(scale), c.input(1).numel(), axis, rank));
  return same_rank(c, ops::cast(y, scale.dtype()));
}

// Scale and zero point from the range of x (widened to include 0), then x quantized with them.
Outputs dynamic_quantize(NodeContext& c) {
  RawTensor x = c.tensor(0);
  RawTensor lo = ops::clamp(ops::reduce_all(ir::ReduceFn::Min, x), std::nullopt, Scalar(0.0));
  RawTensor hi = ops::clamp(ops::reduce_all(ir::ReduceFn::Max, x), Scalar(0.0), std::nullopt);
  RawTensor scale = bin(BinaryFn::Div, bin(BinaryFn::Sub, hi, lo), 255.0);
  RawTensor zp = saturate_u8(bin(BinaryFn::Sub, scalar_like(lo, 0), bin(BinaryFn::Div, lo, scale)));
  RawTensor y = saturate_u8(bin(BinaryFn::Add, un(UnaryFn::Round, bin(BinaryFn::Div, x, scale)),
                                ops::cast(zp, x.dtype())));
  return {Value::tensor(y, c.input(0).rank()), Value::tensor(scale, 0), Value::tensor(zp, 0)};
}

// Input x less its zero point, in f64. A per-slice zero point lies along dim `per_axis_dim`
// (negative: from the end): A's per row (-2), B's per column (-1), a conv's per channel (0 of w).
RawTensor centered(NodeContext& c, int x, int zp, int per_axis_dim) {
  RawTensor t = as_f64(c.tensor(x));
  if (!c.has_input(zp)) return t;
  RawTensor z = as_f64(c.tensor(zp));
  if (c.input(zp).numel() > 1) {
    std::vector<int64_t> view(t.rank(), 1);
    view[t.rank() + per_axis_dim] = c.input(zp).numel();
    z = ops::reshape(z, view);
  }
  return bin(BinaryFn::Sub, t, z);
}

RawTensor int_matmul(const RawTensor& a, const RawTensor& b) {
  int r = std::max(a.rank(), b.rank());
  return ops::matmul(align(a, r), align(b, r));
}

Outputs matmul_integer(NodeContext& c) {
  RawTensor y = int_matmul(centered(c, 0, 2, -2), centered(c, 1, 3, -1));
  return {Value::tensor(ops::cast(y, DType::I32))};
}

Outputs conv_integer(NodeContext& c) {
  RawTensor x = centered(c, 0, 2, 0), w = centered(c, 1, 3, 0);
  size_t n = x.rank() - 2;
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  ops::ConvArgs args{c.attr_ints("strides", std::vector<int64_t>(n, 1)),
                     std::vector<int64_t>(pads.begin(), pads.begin() + n),
                     c.attr_ints("dilations", std::vector<int64_t>(n, 1)),
                     c.attr_int("group", 1),
                     {}};
  return {Value::tensor(ops::cast(ops::conv("ConvInteger", x, w, std::nullopt, args), DType::I32))};
}

// Requantized: real = (acc * a_scale * b_scale) / y_scale + y_zero_point; a per-channel b scale
// lies along `channel_dim` of the accumulator.
RawTensor requantize(NodeContext& c, const RawTensor& acc, int a_scale, int b_scale, int y_scale,
                     int y_zp, int channel_dim) {
  RawTensor bs = as_f64(c.tensor(b_scale));
  if (c.input(b_scale).numel() > 1) {
    std::vector<int64_t> view(acc.rank(), 1);
    view[channel_dim] = c.input(b_scale).numel();
    bs = ops::reshape(bs, view);
  }
  RawTensor s = bin(BinaryFn::Mul, as_f64(c.tensor(a_scale)), bs);
  RawTensor y = bin(BinaryFn::Div, bin(BinaryFn::Mul, acc, s), as_f64(c.tensor(y_scale)));
  y = un(UnaryFn::Round, y);
  if (c.has_input(y_zp)) y = bin(BinaryFn::Add, y, as_f64(c.tensor(y_zp)));
  return saturate_u8(y);
}

Outputs qlinear_matmul(NodeContext& c) {
  RawTensor acc = int_matmul(centered(c, 0, 2, -2), centered(c, 3, 5, -1));
  return {Value::tensor(requantize(c, acc, 1, 4, 6, 7, acc.rank() - 1))};
}

Outputs qlinear_conv(NodeContext& c) {
  RawTensor x = centered(c, 0, 2, 0), w = centered(c, 3, 5, 0);
  size_t n = x.rank() - 2;
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  ops::ConvArgs args{c.attr_ints("strides", std::vector<int64_t>(n, 1)),
                     std::vector<int64_t>(pads.begin(), pads.begin() + n),
                     c.attr_ints("dilations", std::vector<int64_t>(n, 1)),
                     c.attr_int("group", 1),
                     {}};
  std::optional<RawTensor> bias;
  if (c.has_input(8)) bias = as_f64(c.tensor(8));
  RawTensor acc = ops::conv("QLinearConv", x, w, bias, args);
  return {Value::tensor(requantize(c, acc, 1, 4, 6, 7, 1))};
}

std::string check_conv_integer(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "auto_pad" && a.s() != "NOTSET" && a.s() != "VALID") {
      return "auto_pad '" + a.s() + "' not supported";
    }
    if (a.name() == "pads") {
      int k = a.ints_size() / 2;
      for (int i = 0; i < k; ++i) {
        if (a.ints(i) != a.ints(i + k)) return "asymmetric pads not supported";
      }
    }
  }
  return "";
}

}  // namespace

void register_quantize(Registry& r) {
  const std::vector<std::string> conv = {"auto_pad",     "dilations", "group",
                                         "kernel_shape", "pads",      "strides"};
  r.add("QuantizeLinear", {quantize, {"axis"}});
  r.add("DequantizeLinear", {dequantize, {"axis"}});
  r.add("DynamicQuantizeLinear", {dynamic_quantize, {}});
  r.add("MatMulInteger", {matmul_integer, {}});
  r.add("ConvInteger", {conv_integer, conv, check_conv_integer});
  r.add("QLinearMatMul", {qlinear_matmul, {}});
  r.add("QLinearConv", {qlinear_conv, conv, check_conv_integer});
}

}  // namespace ember::onnx_import
