// Indexing and creation: Gather(Elements), ScatterElements, OneHot, NonZero, Shape, Size,
// Constant, ConstantOfShape, Range, EyeLike.
#include <cmath>

#include "frontend/tensor.h"
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"
#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;

// Negative indices count from the end of a dim of size n.
RawTensor wrap_index(const RawTensor& idx, int64_t n) {
  RawTensor i = ops::cast(idx, DType::I64);
  return where(bin(BinaryFn::Lt, i, 0.0), bin(BinaryFn::Add, i, static_cast<double>(n)), i);
}

Outputs gather(NodeContext& c) {
  std::vector<int64_t> dims = c.input(0).dims(), idims = c.input(1).dims();
  int rank = static_cast<int>(dims.size());
  int64_t axis = c.axis(c.attr_int("axis", 0), rank);
  RawTensor idx = ops::reshape(wrap_index(c.tensor(1), dims[axis]), {c.input(1).numel()});
  RawTensor y = ops::select(c.tensor(0), axis, idx);
  std::vector<int64_t> out(dims.begin(), dims.begin() + axis);
  out.insert(out.end(), idims.begin(), idims.end());
  out.insert(out.end(), dims.begin() + axis + 1, dims.end());
  int out_rank = static_cast<int>(out.size());
  if (out.empty()) out.push_back(1);
  return {Value::tensor(ops::reshape(y, out), out_rank)};
}

Outputs gather_elements(NodeContext& c) {
  int rank = c.input(0).rank();
  int64_t axis = c.axis(c.attr_int("axis", 0), rank);
  RawTensor idx = wrap_index(c.tensor(1), c.input(0).dims()[axis]);
  return {Value::tensor(ops::gather(c.tensor(0), axis, idx), rank)};
}

Outputs scatter_elements(NodeContext& c) {
  int rank = c.input(0).rank();
  int64_t axis = c.axis(c.attr_int("axis", 0), rank);
  RawTensor x = c.tensor(0), upd = c.tensor(2);
  RawTensor idx = wrap_index(c.tensor(1), c.input(0).dims()[axis]);
  std::string reduction = c.attr_string("reduction", "none");
  if (reduction == "add") return same_rank(c, ops::scatter(x, axis, idx, upd));
  // Assignment: the updates summed into zeros where an index points, the input elsewhere
  // (ONNX leaves duplicate indices undefined without a reduction).
  RawTensor zeros = ops::zeros(x.shape(), x.dtype(), x.device());
  RawTensor hit = ops::scatter(ops::zeros(x.shape(), DType::I32, x.device()), axis, idx,
                               ops::ones(upd.shape(), DType::I32, x.device()));
  RawTensor placed = ops::scatter(zeros, axis, idx, upd);
  return same_rank(c, where(bin(BinaryFn::Gt, hit, 0.0), placed, x));
}

std::string check_scatter_nd(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "reduction" && a.s() != "none" && a.s() != "add" && a.s() != "mul") {
      return "reduction '" + a.s() + "' not supported";
    }
  }
  return "";
}

std::string check_scatter(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "reduction" && a.s() != "none" && a.s() != "add") {
      return "reduction '" + a.s() + "' not supported";
    }
  }
  return "";
}

Outputs one_hot(NodeContext& c) {
  int64_t depth = static_cast<int64_t>(c.scalar_input(1));
  const TensorData& values = c.input(2).data();
  RawTensor idx = wrap_index(c.tensor(0), depth);
  int rank = c.input(0).rank() + 1;
  int64_t axis = c.axis(c.attr_int("axis", -1), rank);
  RawTensor x = c.input(0).rank() == 0 ? ops::reshape(idx, {1}) : idx;
  if (c.input(0).rank() == 0) {
    axis = 0;  // a scalar index gives a vector
  }
  // Compared with a class iota: indices out of [0, depth) give rows of `off`.
  std::vector<int64_t> view(rank, 1);
  view[axis] = depth;
  RawTensor iota = ops::reshape(ops::arange(0, depth, 1, DType::I64, idx.device()), view);
  RawTensor hot = bin(BinaryFn::Eq, ops::unsqueeze_dim(x, axis), iota);
  DType dt = values.dtype();
  RawTensor on = ops::full(Shape{1}, Scalar(values.value_at(1)), dt, idx.device());
  RawTensor off = ops::full(Shape{1}, Scalar(values.value_at(0)), dt, idx.device());
  if (!is_float(dt)) {
    on = ops::full(Shape{1}, Scalar(static_cast<int64_t>(values.value_at(1))), dt, idx.device());
    off = ops::full(Shape{1}, Scalar(static_cast<int64_t>(values.value_at(0))), dt, idx.device());
  }
  return {Value::tensor(where(hot, on, off), rank)};
}

Outputs shape(NodeContext& c) {
  std::vector<int64_t> dims = c.input(0).dims();
  int64_t r = static_cast<int64_t>(dims.size());
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, start, r);
  std::vector<int64_t> out(dims.begin() + start, dims.begin() + end);
  return {Value::known(TensorData(out))};
}

Outputs size(NodeContext& c) {
  return {Value::known(TensorData(std::vector<int64_t>{c.input(0).numel()}, Shape{}))};
}

TensorData constant_data(NodeContext& c) {
  if (const auto* a = c.attr("value")) return to_data(a->t());
  if (const auto* a = c.attr("value_float")) return TensorData(std::vector<float>{a->f()}, Shape{});
  if (const auto* a = c.attr("value_int")) {
    return TensorData(std::vector<int64_t>{a->i()}, Shape{});
  }
  if (c.has_attr("value_floats")) return TensorData(c.attr_floats("value_floats"));
  if (c.has_attr("value_ints")) return TensorData(c.attr_ints("value_ints"));
  c.fail("no value");
}

std::string check_constant(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "value" && !to_dtype(a.t().data_type())) {
      return "a constant of element type " + onnx_type_name(a.t().data_type()) +
             ", which Ember lacks";
    }
  }
  return "";
}

Outputs constant_of_shape(NodeContext& c) {
  std::vector<int64_t> dims = c.ints_input(0);
  TensorData v =
      c.has_attr("value") ? to_data(c.attr("value")->t()) : TensorData(std::vector<float>{0.0f});
  Scalar s =
      is_float(v.dtype()) ? Scalar(v.value_at(0)) : Scalar(static_cast<int64_t>(v.value_at(0)));
  Shape shape = dims.empty() ? Shape{1} : Shape(dims);
  return {Value::tensor(ops::full(shape, s, v.dtype(), c.device()), static_cast<int>(dims.size()))};
}

Outputs range(NodeContext& c) {
  double start = c.scalar_input(0), limit = c.scalar_input(1), delta = c.scalar_input(2);
  int64_t n = std::max<int64_t>(static_cast<int64_t>(std::ceil((limit - start) / delta)), 0);
  DType dt = c.input(0).dtype();
  RawTensor i = ops::arange(0, n, 1, is_float(dt) ? DType::F64 : DType::I64, c.device());
  RawTensor y = bin(BinaryFn::Add, bin(BinaryFn::Mul, i, delta), start);
  return {Value::tensor(ops::cast(y, dt), 1)};
}

Outputs eye_like(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int64_t rows = x.shape()[0], cols = x.shape()[1], k = c.attr_int("k", 0);
  DType dt =
      c.has_attr("dtype") ? *to_dtype(static_cast<int32_t>(c.attr_int("dtype", 1))) : x.dtype();
  RawTensor r = ops::reshape(ops::arange(0, rows, 1, DType::I64, x.device()), {rows, 1});
  RawTensor col = ops::reshape(ops::arange(0, cols, 1, DType::I64, x.device()), {1, cols});
  RawTensor diag = bin(BinaryFn::Eq, bin(BinaryFn::Sub, col, r), static_cast<double>(k));
  return {Value::tensor(ops::cast(diag, dt), 2)};
}

Outputs nonzero(NodeContext& c) {
  // argwhere gives [count, rank]; ONNX wants [rank, count]. Reading the count runs pending work.
  RawTensor coords = ops::cast(ops::argwhere(c.tensor(0)), DType::I64);
  return {Value::tensor(ops::permute(coords, {1, 0}), 2)};
}

// The row of `data` viewed as [prod(dims[:b + k]), rest...] that each index tuple (the last dim
// of `indices`, k long, after b batch dims) points at.
RawTensor nd_rows(const std::vector<int64_t>& dims, const RawTensor& indices, int64_t b) {
  std::vector<int64_t> idims = indices.shape().vector();
  int64_t k = idims.back();
  RawTensor idx = ops::cast(indices, DType::I64);
  RawTensor lin;
  int64_t stride = 1;
  for (int64_t j = b + k - 1; j >= b; --j) {
    RawTensor col = ops::squeeze(ops::narrow(idx, -1, j - b, 1), -1);
    col = wrap_index(col, dims[j]);
    RawTensor term = bin(BinaryFn::Mul, col, static_cast<double>(stride));
    lin = lin.defined() ? bin(BinaryFn::Add, lin, term) : term;
    stride *= dims[j];
  }
  if (!lin.defined()) {  // k = 0: whole slices
    std::vector<int64_t> d(idims.begin(), idims.end() - 1);
    lin = ops::zeros(Shape(d.empty() ? std::vector<int64_t>{1} : d), DType::I64, idx.device());
  }
  if (b > 0) {
    // Each batch position starts at its own block of `stride` rows.
    int64_t batches = 1;
    for (int64_t j = 0; j < b; ++j) batches *= dims[j];
    std::vector<int64_t> view(idims.begin(), idims.begin() + b);
    view.resize(lin.rank(), 1);
    RawTensor base = ops::reshape(ops::arange(0, batches, 1, DType::I64, idx.device()), view);
    lin = bin(BinaryFn::Add, lin, bin(BinaryFn::Mul, base, static_cast<double>(stride)));
  }
  return lin;
}

std::vector<int64_t> rows_view(const std::vector<int64_t>& dims, int64_t lead) {
  std::vector<int64_t> v{1};
  for (int64_t j = 0; j < lead; ++j) v[0] *= dims[j];
  v.insert(v.end(), dims.begin() + lead, dims.end());
  return v;
}

Outputs gather_nd(NodeContext& c) {
  std::vector<int64_t> dims = c.input(0).dims(), idims = c.input(1).dims();
  int64_t b = c.attr_int("batch_dims", 0), k = idims.back();
  RawTensor lin = nd_rows(dims, c.tensor(1), b);
  RawTensor data = ops::reshape(c.tensor(0), rows_view(dims, b + k));
  RawTensor rows = ops::select(data, 0, ops::reshape(lin, {lin.shape().numel()}));
  std::vector<int64_t> out(idims.begin(), idims.end() - 1);
  out.insert(out.end(), dims.begin() + b + k, dims.end());
  int out_rank = static_cast<int>(out.size());
  if (out.empty()) out.push_back(1);
  return {Value::tensor(ops::reshape(rows, out), out_rank)};
}

// Rows [P, ..] of x times every update row [M, ..] that hits them (`flat` [M] gives each
// update's row), through a [P, M] mask of hits: duplicates multiply in, as reduction 'mul' says.
RawTensor scatter_mul_rows(const RawTensor& x, const RawTensor& flat, const RawTensor& upd) {
  int64_t p = x.shape()[0], m = flat.shape()[0];
  std::vector<int64_t> pv(x.rank() + 1, 1), mv(x.rank() + 1, 1);
  pv[0] = p;
  mv[1] = m;
  RawTensor rows = ops::reshape(ops::arange(0, p, 1, DType::I64, x.device()), pv);
  RawTensor hits = bin(BinaryFn::Eq, rows, ops::reshape(flat, mv));  // [P, M, 1, ..]
  RawTensor u = ops::unsqueeze_dim(upd, 0);                          // [1, M, ..]
  RawTensor factors = where(hits, u, scalar_like(u, 1));
  return bin(BinaryFn::Mul, x, ops::squeeze(ops::reduce_dim(ir::ReduceFn::Prod, factors, 1), 1));
}

Outputs scatter_nd(NodeContext& c) {
  std::vector<int64_t> dims = c.input(0).dims(), idims = c.input(1).dims();
  int64_t k = idims.back();
  RawTensor lin = nd_rows(dims, c.tensor(1), 0);
  int64_t m = lin.shape().numel();
  std::vector<int64_t> view = rows_view(dims, k);
  RawTensor x = ops::reshape(c.tensor(0), view);
  std::vector<int64_t> uview = view;
  uview[0] = m;
  RawTensor upd = ops::reshape(c.tensor(2), uview);
  RawTensor flat = ops::reshape(lin, {m});
  RawTensor y;
  std::string reduction = c.attr_string("reduction", "none");
  if (reduction == "add") {
    y = ops::select_assign(x, 0, flat, upd);
  } else if (reduction == "mul") {
    y = scatter_mul_rows(x, flat, upd);
  } else {
    // Assignment: the rows an index hits take the update (ONNX leaves duplicates undefined).
    RawTensor hit = ops::select_assign(ops::zeros(Shape{view[0], 1}, DType::I32, x.device()), 0,
                                       flat, ops::ones(Shape{m, 1}, DType::I32, x.device()));
    std::vector<int64_t> hview(view.size(), 1);
    hview[0] = view[0];
    RawTensor placed =
        ops::select_assign(ops::zeros(x.shape(), x.dtype(), x.device()), 0, flat, upd);
    y = where(ops::reshape(bin(BinaryFn::Gt, hit, 0.0), hview), placed, x);
  }
  return same_rank(c, ops::reshape(y, dims));
}

// The positions where the condition holds (read on the host: the result's size depends on it).
Outputs compress(NodeContext& c) {
  std::vector<uint8_t> keep;
  for (bool v : c.input(1).data().to_vec<bool>()) keep.push_back(v);
  RawTensor x = c.tensor(0);
  int64_t axis = 0;
  if (c.has_attr("axis")) {
    axis = c.axis(c.attr_int("axis", 0), c.input(0).rank());
  } else {
    x = ops::reshape(x, {c.input(0).numel()});
  }
  std::vector<int64_t> idx;
  for (size_t i = 0; i < keep.size() && static_cast<int64_t>(i) < x.shape()[static_cast<int>(axis)];
       ++i) {
    if (keep[i]) idx.push_back(static_cast<int64_t>(i));
  }
  RawTensor sel = detail::raw_from_data(TensorData(idx), x.device());
  return {Value::tensor(ops::select(x, axis, sel))};
}

// Each batch entry's first len[b] steps reversed: a gather along the time axis.
Outputs reverse_sequence(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int64_t tax = c.attr_int("time_axis", 0), bax = c.attr_int("batch_axis", 1);
  int64_t steps = x.shape()[static_cast<int>(tax)], batch = x.shape()[static_cast<int>(bax)];
  std::vector<int64_t> tview(x.rank(), 1), bview(x.rank(), 1);
  tview[tax] = steps;
  bview[bax] = batch;
  RawTensor t = ops::reshape(ops::arange(0, steps, 1, DType::I64, x.device()), tview);
  RawTensor len = ops::reshape(ops::cast(c.tensor(1), DType::I64), bview);
  RawTensor rev = bin(BinaryFn::Sub, bin(BinaryFn::Sub, len, 1.0), t);
  RawTensor idx = where(bin(BinaryFn::Lt, t, len), rev, t);
  std::vector<int64_t> shape = x.shape().vector();
  idx = ops::expand(idx, shape);
  return same_rank(c, ops::gather(x, tax, idx));
}

}  // namespace

void register_index(Registry& r) {
  r.add("Gather", {gather, {"axis"}});
  r.add("GatherElements", {gather_elements, {"axis"}});
  r.add("ScatterElements", {scatter_elements, {"axis", "reduction"}, check_scatter});
  // Scatter (opsets 9-10) is ScatterElements under its old name.
  r.add("Scatter", {scatter_elements, {"axis"}});
  r.add("OneHot", {one_hot, {"axis"}});
  r.add("GatherND", {gather_nd, {"batch_dims"}});
  r.add("ScatterND", {scatter_nd, {"reduction"}, check_scatter_nd});
  r.add("Compress", {compress, {"axis"}});
  r.add("ReverseSequence", {reverse_sequence, {"batch_axis", "time_axis"}});
  r.add("Shape", {shape, {"start", "end"}});
  r.add("Size", {size, {}});
  r.add("Constant", {[](NodeContext& c) { return Outputs{Value::known(constant_data(c))}; },
                     {"value", "value_float", "value_floats", "value_int", "value_ints"},
                     check_constant});
  r.add("ConstantOfShape", {constant_of_shape, {"value"}});
  r.add("Range", {range, {}});
  r.add("EyeLike", {eye_like, {"k", "dtype"}});
  r.add("NonZero", {nonzero, {}});
}

}  // namespace ember::onnx_import
