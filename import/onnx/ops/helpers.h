#pragma once
// Shared pieces of the op converters: rank alignment (ONNX broadcasts by aligning trailing
// dims; the frontend's elementwise ops take equal ranks), scalars and result values.
#include <algorithm>
#include <functional>
#include <vector>

#include "frontend/ops.h"
#include "import/onnx/context.h"
#include "import/onnx/registry.h"

namespace ember::onnx_import {

using Outputs = std::vector<Value>;

// `t` with leading size-1 dims up to `rank`.
inline RawTensor align(const RawTensor& t, int rank) {
  return t.rank() < rank ? ops::unsqueeze(t, rank) : t;
}

// A [1, ..] tensor of `like`'s rank, dtype and device holding `v`.
inline RawTensor scalar_like(const RawTensor& like, double v) {
  Scalar s = is_float(like.dtype()) ? Scalar(v) : Scalar(static_cast<int64_t>(v));
  if (is_bool(like.dtype())) s = Scalar(static_cast<int64_t>(v != 0));
  return ops::full(Shape::ones(like.rank()), s, like.dtype(), like.device());
}

// cond ? a : b with NumPy broadcasting.
inline RawTensor where(const RawTensor& cond, const RawTensor& a, const RawTensor& b) {
  int r = std::max({cond.rank(), a.rank(), b.rank()});
  return ops::mask_where(align(b, r), align(cond, r), align(a, r));
}

inline RawTensor bin(ir::BinaryFn fn, const RawTensor& a, const RawTensor& b) {
  int r = std::max(a.rank(), b.rank());
  return ops::binary(fn, align(a, r), align(b, r));
}
inline RawTensor bin(ir::BinaryFn fn, const RawTensor& a, double s) {
  return bin(fn, a, scalar_like(a, s));
}
inline RawTensor un(ir::UnaryFn fn, const RawTensor& a) { return ops::unary(fn, a); }

// The output of an elementwise op on input 0: the same ONNX rank.
inline Outputs same_rank(NodeContext& c, RawTensor t) {
  return {Value::tensor(std::move(t), c.input(0).rank())};
}

// The largest ONNX rank among the given inputs.
inline int max_rank(NodeContext& c) {
  int r = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.has_input(i)) r = std::max(r, c.input(i).rank());
  }
  return r;
}

// An entry for a converter of input 0 alone.
inline OpEntry unary_entry(std::function<RawTensor(const RawTensor&, NodeContext&)> f,
                           std::vector<std::string> attrs = {}) {
  return {[f](NodeContext& c) { return same_rank(c, f(c.tensor(0), c)); }, std::move(attrs)};
}

// Normalised axes (sorted, unique).
inline std::vector<int64_t> norm_axes(NodeContext& c, std::vector<int64_t> axes, int rank) {
  for (auto& a : axes) a = c.axis(a, rank);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

}  // namespace ember::onnx_import
