// Normalizations (inference forms): BatchNormalization, InstanceNormalization,
// LayerNormalization, LpNormalization, MeanVarianceNormalization.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

// A per-channel [C] tensor viewed as [1, C, 1, ...] against a rank-`rank` input.
RawTensor per_channel(const RawTensor& t, int rank) {
  std::vector<int64_t> view(rank, 1);
  view[1] = t.shape().numel();
  return ops::reshape(t, view);
}

RawTensor normalize(const RawTensor& x, const RawTensor& mean, const RawTensor& var, double eps,
                    const RawTensor& scale, const RawTensor& b) {
  RawTensor inv = un(UnaryFn::Recip, un(UnaryFn::Sqrt, bin(BinaryFn::Add, var, eps)));
  RawTensor y = bin(BinaryFn::Mul, bin(BinaryFn::Sub, x, mean), bin(BinaryFn::Mul, inv, scale));
  return bin(BinaryFn::Add, y, b);
}

// The mean over every dim but the channels (1), kept as [1, C, 1, ...].
RawTensor channel_mean(const RawTensor& x) {
  RawTensor m = x;
  int64_t count = 1;
  for (int d = 0; d < x.rank(); ++d) {
    if (d == 1) continue;
    m = ops::reduce_dim(ir::ReduceFn::Sum, m, d);
    count *= x.shape()[d];
  }
  return bin(BinaryFn::Div, m, static_cast<double>(count));
}

// Inference normalises with the running statistics; training mode with the batch's (population
// variance), and also returns the running statistics moved toward them by 1 - momentum.
Outputs batch_norm(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int r = x.rank();
  double eps = c.attr_float("epsilon", 1e-5f);
  RawTensor scale = per_channel(c.tensor(1), r), b = per_channel(c.tensor(2), r);
  RawTensor mean = per_channel(c.tensor(3), r), var = per_channel(c.tensor(4), r);
  if (!c.attr_int("training_mode", 0))
    return {Value::tensor(normalize(x, mean, var, eps, scale, b))};
  RawTensor bm = channel_mean(x);
  RawTensor d = bin(BinaryFn::Sub, x, bm);
  RawTensor bv = channel_mean(bin(BinaryFn::Mul, d, d));
  Outputs out{Value::tensor(normalize(x, bm, bv, eps, scale, b))};
  double momentum = c.attr_float("momentum", 0.9f);
  auto moved = [&](const RawTensor& running, const RawTensor& batch) {
    RawTensor m = bin(BinaryFn::Add, bin(BinaryFn::Mul, running, momentum),
                      bin(BinaryFn::Mul, batch, 1 - momentum));
    return Value::tensor(ops::reshape(m, {m.shape().numel()}));
  };
  out.push_back(moved(mean, bm));
  out.push_back(moved(var, bv));
  return out;
}

// x normalised over its trailing dims from `axis` on: (y, mean, 1 / std) with kept dims.
struct Normalized {
  RawTensor y, mean, inv_std;
};

Normalized normalize_from(const RawTensor& x, int64_t axis, double eps) {
  std::vector<int64_t> dims = x.shape().vector();
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  RawTensor flat = ops::reshape(x, {outer, -1});
  auto [var, mean] = ops::var_mean(flat, 1, 0);
  RawTensor inv = un(UnaryFn::Recip, un(UnaryFn::Sqrt, bin(BinaryFn::Add, var, eps)));
  RawTensor y = ops::reshape(bin(BinaryFn::Mul, bin(BinaryFn::Sub, flat, mean), inv), dims);
  std::vector<int64_t> kept(dims.begin(), dims.begin() + axis);
  kept.resize(dims.size(), 1);
  return {y, ops::reshape(mean, kept), ops::reshape(inv, kept)};
}

Outputs layer_norm(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int64_t axis = c.axis(c.attr_int("axis", -1), x.rank());
  // stash_type 1 computes the statistics in f32 (half inputs); Ember's f32 path does so.
  RawTensor xf = is_float(x.dtype()) && x.dtype() != DType::F64 ? ops::cast(x, DType::F32) : x;
  Normalized n = normalize_from(xf, axis, c.attr_float("epsilon", 1e-5f));
  RawTensor y = ops::cast(n.y, x.dtype());
  y = bin(BinaryFn::Mul, y, c.tensor(1));
  if (c.has_input(2)) y = bin(BinaryFn::Add, y, c.tensor(2));
  return {Value::tensor(y), Value::tensor(n.mean), Value::tensor(n.inv_std)};
}

Outputs instance_norm(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int r = x.rank();
  Normalized n = normalize_from(x, 2, c.attr_float("epsilon", 1e-5f));
  RawTensor y = bin(BinaryFn::Mul, n.y, per_channel(c.tensor(1), r));
  return {Value::tensor(bin(BinaryFn::Add, y, per_channel(c.tensor(2), r)))};
}

Outputs lp_norm(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int64_t axis = c.axis(c.attr_int("axis", -1), x.rank());
  int64_t p = c.attr_int("p", 2);
  RawTensor norm = p == 1 ? ops::reduce_dim(ir::ReduceFn::Sum, un(UnaryFn::Abs, x), axis)
                          : un(UnaryFn::Sqrt,
                               ops::reduce_dim(ir::ReduceFn::Sum, bin(BinaryFn::Mul, x, x), axis));
  return same_rank(c, bin(BinaryFn::Div, x, norm));
}

std::string check_lp(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "p" && a.i() != 1 && a.i() != 2) return "p other than 1 or 2";
  }
  return "";
}

// (x - mean) / sqrt(var) over `axes` (default N, H, W), without an epsilon as ONNX defines it.
Outputs mvn(NodeContext& c) {
  RawTensor x = c.tensor(0);
  std::vector<int64_t> axes = norm_axes(c, c.attr_ints("axes", {0, 2, 3}), x.rank());
  int64_t count = 1;
  RawTensor mean = x;
  for (int64_t a : axes) {
    mean = ops::reduce_dim(ir::ReduceFn::Sum, mean, a);
    count *= x.shape()[static_cast<int>(a)];
  }
  mean = bin(BinaryFn::Div, mean, static_cast<double>(count));
  RawTensor d = bin(BinaryFn::Sub, x, mean);
  RawTensor var = bin(BinaryFn::Mul, d, d);
  for (int64_t a : axes) var = ops::reduce_dim(ir::ReduceFn::Sum, var, a);
  var = bin(BinaryFn::Div, var, static_cast<double>(count));
  return same_rank(c, bin(BinaryFn::Div, d, un(UnaryFn::Sqrt, var)));
}

// x / (bias + alpha / size * sum of squares over `size` neighbouring channels)^beta.
Outputs lrn(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int64_t size = c.attr_int("size", 1), ch = x.shape()[1];
  double alpha = c.attr_float("alpha", 1e-4f), beta = c.attr_float("beta", 0.75f);
  double bias = c.attr_float("bias", 1.0f);
  // pads run from the last dim backwards: channels (dim 1) is entry rank - 2.
  std::vector<std::pair<int64_t, int64_t>> p(x.rank() - 1, {0, 0});
  p[x.rank() - 2] = {(size - 1) / 2, size - 1 - (size - 1) / 2};
  RawTensor sq = ops::pad(bin(BinaryFn::Mul, x, x), p, Scalar(0.0));
  RawTensor sum;
  for (int64_t i = 0; i < size; ++i) {
    RawTensor part = ops::narrow(sq, 1, i, ch);
    sum = sum.defined() ? bin(BinaryFn::Add, sum, part) : part;
  }
  RawTensor d = bin(BinaryFn::Add, bin(BinaryFn::Mul, sum, alpha / size), bias);
  return same_rank(c, bin(BinaryFn::Div, x, bin(BinaryFn::Pow, d, beta)));
}

}  // namespace

void register_norm(Registry& r) {
  r.add("BatchNormalization", {batch_norm, {"epsilon", "momentum", "training_mode"}});
  r.add("LayerNormalization", {layer_norm, {"axis", "epsilon", "stash_type"}});
  r.add("InstanceNormalization", {instance_norm, {"epsilon"}});
  r.add("LpNormalization", {lp_norm, {"axis", "p"}, check_lp});
  r.add("MeanVarianceNormalization", {mvn, {"axes"}});
  r.add("LRN", {lrn, {"alpha", "beta", "bias", "size"}});
}

}  // namespace ember::onnx_import
