// Reductions, ArgMax/ArgMin, TopK and CumSum.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::ReduceFn;
using ir::UnaryFn;

enum class Red { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

// The reduced axes: the `axes` input (ReduceSum from opset 13, the others from 18) or attribute;
// none given reduces all, unless noop_with_empty_axes.
std::vector<int64_t> reduce_axes(NodeContext& c, int rank, bool* noop) {
  std::vector<int64_t> axes;
  if (c.has_input(1)) {
    axes = c.ints_input(1);
  } else {
    axes = c.attr_ints("axes");
  }
  *noop = axes.empty() && c.attr_int("noop_with_empty_axes", 0);
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  return norm_axes(c, axes, rank);
}

RawTensor reduce_over(ReduceFn fn, RawTensor x, const std::vector<int64_t>& axes) {
  for (int64_t a : axes) x = ops::reduce_dim(fn, x, a);
  return x;
}

// Drops the reduced (now size-1) axes unless keepdims; a full reduction gives rank 0.
Outputs finish(NodeContext& c, const RawTensor& y, const std::vector<int64_t>& axes, int rank) {
  if (c.attr_int("keepdims", 1)) return {Value::tensor(y, rank)};
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!std::binary_search(axes.begin(), axes.end(), d)) dims.push_back(y.shape()[d]);
  }
  int out_rank = static_cast<int>(dims.size());
  if (dims.empty()) dims.push_back(1);
  return {Value::tensor(ops::reshape(y, dims), out_rank)};
}

Outputs reduce(NodeContext& c, Red kind) {
  RawTensor x = c.tensor(0);
  int rank = c.input(0).rank();
  bool noop = false;
  std::vector<int64_t> axes = reduce_axes(c, rank, &noop);
  if (noop) return {c.input(0)};
  int64_t count = 1;
  for (int64_t a : axes) count *= x.shape()[static_cast<int>(a)];
  RawTensor y;
  switch (kind) {
    case Red::Sum:
      y = reduce_over(ReduceFn::Sum, x, axes);
      break;
    case Red::Mean:
      y = bin(BinaryFn::Div, reduce_over(ReduceFn::Sum, x, axes), static_cast<double>(count));
      break;
    case Red::Max:
      y = reduce_over(ReduceFn::Max, x, axes);
      break;
    case Red::Min:
      y = reduce_over(ReduceFn::Min, x, axes);
      break;
    case Red::Prod:
      y = reduce_over(ReduceFn::Prod, x, axes);
      break;
    case Red::L1:
      y = reduce_over(ReduceFn::Sum, un(UnaryFn::Abs, x), axes);
      break;
    case Red::L2:
      y = un(UnaryFn::Sqrt, reduce_over(ReduceFn::Sum, bin(BinaryFn::Mul, x, x), axes));
      break;
    case Red::SumSquare:
      y = reduce_over(ReduceFn::Sum, bin(BinaryFn::Mul, x, x), axes);
      break;
    case Red::LogSum:
      y = un(UnaryFn::Log, reduce_over(ReduceFn::Sum, x, axes));
      break;
    case Red::LogSumExp: {
      // Shifted by the maximum so large inputs do not overflow.
      RawTensor m = reduce_over(ReduceFn::Max, x, axes);
      RawTensor s = reduce_over(ReduceFn::Sum, un(UnaryFn::Exp, bin(BinaryFn::Sub, x, m)), axes);
      y = bin(BinaryFn::Add, un(UnaryFn::Log, s), m);
      break;
    }
  }
  if (!is_float(x.dtype()) && y.dtype() != x.dtype()) y = ops::cast(y, x.dtype());
  return finish(c, y, axes, rank);
}

Outputs arg_reduce(NodeContext& c, ReduceFn fn) {
  RawTensor x = c.tensor(0);
  int rank = std::max(c.input(0).rank(), 1);
  int64_t axis = c.axis(c.attr_int("axis", 0), rank);
  RawTensor y;
  if (c.attr_int("select_last_index", 0)) {
    // The last extreme is the first one of the flipped axis.
    int64_t n = x.shape()[static_cast<int>(axis)];
    y = ops::cast(ops::reduce_dim(fn, ops::flip(x, {axis}), axis), DType::I64);
    y = bin(BinaryFn::Sub, scalar_like(y, static_cast<double>(n - 1)), y);
  } else {
    y = ops::cast(ops::reduce_dim(fn, x, axis), DType::I64);
  }
  return finish(c, y, {axis}, c.input(0).rank());
}

// Sorted along `axis`: the k largest (or smallest) values and their indices.
Outputs topk(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int rank = c.input(0).rank();
  int64_t axis = c.axis(c.attr_int("axis", -1), rank);
  int64_t k = c.ints_input(1).at(0);
  bool largest = c.attr_int("largest", 1);
  auto [values, indices] = ops::sort_with_indices(x, axis, largest);
  values = ops::narrow(values, axis, 0, k);
  indices = ops::cast(ops::narrow(indices, axis, 0, k), DType::I64);
  return {Value::tensor(values, rank), Value::tensor(indices, rank)};
}

// Cumulative sums along an axis as a product with a triangular matrix of ones.
Outputs cumsum(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int rank = c.input(0).rank();
  int64_t axis = c.axis(c.ints_input(1).at(0), rank);
  int64_t n = x.shape()[static_cast<int>(axis)];
  bool exclusive = c.attr_int("exclusive", 0), reverse = c.attr_int("reverse", 0);
  // m[i, j] = 1 when input i adds into output j: i <= j (forward) or i >= j (reverse), strictly
  // when exclusive.
  RawTensor i = ops::reshape(ops::arange(0, n, 1, DType::I64, x.device()), {n, 1});
  RawTensor j = ops::reshape(ops::arange(0, n, 1, DType::I64, x.device()), {1, n});
  BinaryFn cmp = reverse ? (exclusive ? BinaryFn::Gt : BinaryFn::Ge)
                         : (exclusive ? BinaryFn::Lt : BinaryFn::Le);
  RawTensor m = ops::cast(bin(cmp, i, j), x.dtype());
  RawTensor moved = ops::movedim(x, {axis}, {-1});
  RawTensor y = ops::matmul(moved, align(m, moved.rank()));
  return same_rank(c, ops::movedim(y, {-1}, {axis}));
}

void add_reduce(Registry& r, const char* op, Red kind) {
  r.add(op, {[kind](NodeContext& c) { return reduce(c, kind); },
             {"axes", "keepdims", "noop_with_empty_axes"}});
}

}  // namespace

void register_reduce(Registry& r) {
  add_reduce(r, "ReduceSum", Red::Sum);
  add_reduce(r, "ReduceMean", Red::Mean);
  add_reduce(r, "ReduceMax", Red::Max);
  add_reduce(r, "ReduceMin", Red::Min);
  add_reduce(r, "ReduceProd", Red::Prod);
  add_reduce(r, "ReduceL1", Red::L1);
  add_reduce(r, "ReduceL2", Red::L2);
  add_reduce(r, "ReduceLogSum", Red::LogSum);
  add_reduce(r, "ReduceLogSumExp", Red::LogSumExp);
  add_reduce(r, "ReduceSumSquare", Red::SumSquare);
  r.add("ArgMax", {[](NodeContext& c) { return arg_reduce(c, ReduceFn::ArgMax); },
                   {"axis", "keepdims", "select_last_index"}});
  r.add("ArgMin", {[](NodeContext& c) { return arg_reduce(c, ReduceFn::ArgMin); },
                   {"axis", "keepdims", "select_last_index"}});
  r.add("TopK", {topk, {"axis", "largest", "sorted"}});
  r.add("CumSum", {cumsum, {"exclusive", "reverse"}});
}

}  // namespace ember::onnx_import
