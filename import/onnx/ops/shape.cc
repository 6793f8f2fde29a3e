// Shape and layout ops: Reshape, Transpose, Flatten, (Un)Squeeze, Expand, Concat, Split, Slice,
// Tile, Pad, Identity, Dropout (inference), Trilu and the depth/space rearrangements.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;

// The tensor reshaped to ONNX dims (rank 0 as [1]).
Value reshaped(const RawTensor& x, const std::vector<int64_t>& dims) {
  std::vector<int64_t> d = dims.empty() ? std::vector<int64_t>{1} : dims;
  // The frontend's reshape reads a 0 as "keep this dim": an empty result is made, not viewed.
  if (Shape(d).numel() == 0) {
    return Value::tensor(ops::zeros(Shape(d), x.dtype(), x.device()),
                         static_cast<int>(dims.size()));
  }
  return Value::tensor(ops::reshape(x, d), static_cast<int>(dims.size()));
}

Outputs reshape(NodeContext& c) {
  std::vector<int64_t> in = c.input(0).dims(), shape = c.ints_input(1);
  bool allowzero = c.attr_int("allowzero", 0);
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= in.size()) c.fail("a 0 in the shape has no input dim to copy");
      shape[i] = in[i];
    }
    if (shape[i] == -1) {
      infer = static_cast<int64_t>(i);
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0) shape[infer] = known == 0 ? 0 : Shape(in).numel() / known;
  if (Shape(shape).numel() != Shape(in).numel()) {
    c.fail("cannot reshape " + Shape(in).to_string() + " to " + Shape(shape).to_string());
  }
  return {reshaped(c.tensor(0), shape)};
}

Outputs transpose(NodeContext& c) {
  int rank = c.input(0).rank();
  std::vector<int64_t> perm = c.attr_ints("perm");
  if (perm.empty()) {
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  if (rank == 0) return {c.input(0)};
  return same_rank(c, ops::permute(c.tensor(0), perm));
}

Outputs flatten(NodeContext& c) {
  std::vector<int64_t> dims = c.input(0).dims();
  int rank = static_cast<int>(dims.size());
  int64_t axis = c.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) c.fail("axis out of range");
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  return {reshaped(c.tensor(0), {outer, Shape(dims).numel() / std::max<int64_t>(outer, 1)})};
}

// Axes from input 1 (opset 13) or the attribute.
std::vector<int64_t> axes_of(NodeContext& c) {
  return c.has_input(1) ? c.ints_input(1) : c.attr_ints("axes");
}

Outputs squeeze(NodeContext& c) {
  std::vector<int64_t> dims = c.input(0).dims(), out;
  std::vector<int64_t> axes = norm_axes(c, axes_of(c), static_cast<int>(dims.size()));
  for (size_t d = 0; d < dims.size(); ++d) {
    bool listed = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d));
    if (listed && dims[d] != 1)
      c.fail("cannot squeeze dim " + std::to_string(d) + " of size " + std::to_string(dims[d]));
    if (!(listed || (axes.empty() && dims[d] == 1))) out.push_back(dims[d]);
  }
  return {reshaped(c.tensor(0), out)};
}

Outputs unsqueeze(NodeContext& c) {
  std::vector<int64_t> dims = c.input(0).dims();
  std::vector<int64_t> axes_in = axes_of(c);
  int out_rank = static_cast<int>(dims.size() + axes_in.size());
  std::vector<int64_t> axes = norm_axes(c, axes_in, out_rank);
  std::vector<int64_t> out;
  size_t next = 0;
  for (int d = 0; d < out_rank; ++d) {
    if (std::binary_search(axes.begin(), axes.end(), d)) {
      out.push_back(1);
    } else {
      out.push_back(dims.at(next++));
    }
  }
  return {reshaped(c.tensor(0), out)};
}

// Bidirectional broadcasting of the input's dims with the requested shape.
Outputs expand(NodeContext& c) {
  std::vector<int64_t> dims = c.input(0).dims(), shape = c.ints_input(1);
  size_t r = std::max(dims.size(), shape.size());
  dims.insert(dims.begin(), r - dims.size(), 1);
  shape.insert(shape.begin(), r - shape.size(), 1);
  std::vector<int64_t> out(r);
  for (size_t d = 0; d < r; ++d) {
    if (dims[d] != shape[d] && dims[d] != 1 && shape[d] != 1) {
      c.fail("cannot broadcast " + Shape(dims).to_string() + " to " + Shape(shape).to_string());
    }
    out[d] = dims[d] == 1 ? shape[d] : dims[d];
  }
  if (r == 0) return {c.input(0)};
  RawTensor x = align(c.tensor(0), static_cast<int>(r));
  return {Value::tensor(ops::expand(x, out), static_cast<int>(r))};
}

Outputs concat(NodeContext& c) {
  int rank = c.input(0).rank();
  int64_t axis = c.axis(c.attr_int("axis", 0), rank);
  std::vector<RawTensor> xs;
  for (int i = 0; i < c.num_inputs(); ++i) {
    // Empty pieces add nothing (and the frontend's cat wants non-empty ones).
    if (c.input(i).numel() > 0) xs.push_back(c.tensor(i));
  }
  if (xs.empty()) return {c.input(0)};
  return {Value::tensor(ops::cat(xs, axis), rank)};
}

Outputs split(NodeContext& c) {
  int rank = c.input(0).rank();
  int64_t axis = c.axis(c.attr_int("axis", 0), rank);
  int64_t n = c.input(0).dims()[axis];
  std::vector<int64_t> sizes = c.has_input(1) ? c.ints_input(1) : c.attr_ints("split");
  if (sizes.empty()) {
    int64_t parts = c.has_attr("num_outputs") ? c.attr_int("num_outputs", 1) : c.num_outputs();
    int64_t each = (n + parts - 1) / parts;  // the last piece may be smaller
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::min(each, n - i * each));
  }
  std::vector<RawTensor> pieces = ops::split_with_sizes(c.tensor(0), sizes, axis);
  Outputs out;
  for (auto& p : pieces) out.push_back(Value::tensor(p, rank));
  return out;
}

// One axis of an ONNX slice as a positive-step range, and whether the axis is flipped first
// (negative steps).
struct AxisSlice {
  Range range;
  bool flip = false;
};

AxisSlice slice_axis(int64_t n, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += n;
  if (end < 0) end += n;
  int64_t count;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, n);
    end = std::clamp<int64_t>(end, 0, n);
    count = end > start ? (end - start + step - 1) / step : 0;
    return {Range(start, start + std::max<int64_t>(count - 1, 0) * step + (count ? 1 : 0), step)};
  }
  start = std::clamp<int64_t>(start, 0, n - 1);
  end = std::clamp<int64_t>(end, -1, n - 1);
  count = start > end ? (start - end - step - 1) / -step : 0;
  int64_t s = n - 1 - start;  // index in the flipped axis
  return {Range(s, s + std::max<int64_t>(count - 1, 0) * -step + (count ? 1 : 0), -step), true};
}

Outputs slice(NodeContext& c) {
  std::vector<int64_t> dims = c.input(0).dims();
  int rank = static_cast<int>(dims.size());
  std::vector<int64_t> starts = c.ints_input(1), ends = c.ints_input(2);
  std::vector<int64_t> axes = c.has_input(3) ? c.ints_input(3) : std::vector<int64_t>{};
  std::vector<int64_t> steps = c.has_input(4) ? c.ints_input(4) : std::vector<int64_t>{};
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  steps.resize(starts.size(), 1);
  RawTensor x = c.tensor(0);
  std::vector<Range> ranges(rank, Range::all());
  std::vector<int64_t> flips;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = c.axis(axes[i], rank);
    if (steps[i] == 0) c.fail("a step of 0");
    AxisSlice s = slice_axis(dims[a], starts[i], ends[i], steps[i]);
    ranges[a] = s.range;
    if (s.flip) flips.push_back(a);
  }
  if (!flips.empty()) x = ops::flip(x, flips);
  return same_rank(c, ops::slice(x, ranges));
}

Outputs tile(NodeContext& c) { return same_rank(c, ops::repeat(c.tensor(0), c.ints_input(1))); }

// Edge and reflect padding of one dim, built from slices of the input.
RawTensor pad_dim(const RawTensor& x, int64_t d, int64_t before, int64_t after, bool reflect) {
  int64_t n = x.shape()[static_cast<int>(d)];
  std::vector<RawTensor> parts;
  if (before > 0) {
    RawTensor b = reflect ? ops::flip(ops::narrow(x, d, 1, before), {d})
                          : ops::repeat_dim(ops::narrow(x, d, 0, 1), d, before);
    parts.push_back(b);
  }
  parts.push_back(x);
  if (after > 0) {
    RawTensor a = reflect ? ops::flip(ops::narrow(x, d, n - 1 - after, after), {d})
                          : ops::repeat_dim(ops::narrow(x, d, n - 1, 1), d, after);
    parts.push_back(a);
  }
  return parts.size() == 1 ? x : ops::cat(parts, d);
}

Outputs pad(NodeContext& c) {
  int rank = c.input(0).rank();
  std::vector<int64_t> pads = c.has_input(1) ? c.ints_input(1) : c.attr_ints("pads");
  std::vector<int64_t> axes = c.has_input(3) ? c.ints_input(3) : std::vector<int64_t>{};
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  size_t k = axes.size();
  if (pads.size() != 2 * k) c.fail("pads must hold 2 values per padded axis");
  std::string mode = c.attr_string("mode", "constant");
  RawTensor x = c.tensor(0);
  if (mode == "constant") {
    double value = c.has_input(2) ? c.scalar_input(2) : c.attr_float("value", 0.0f);
    std::vector<std::pair<int64_t, int64_t>> p(rank, {0, 0});
    for (size_t i = 0; i < k; ++i) {
      int64_t a = c.axis(axes[i], rank);
      p[rank - 1 - a] = {pads[i], pads[i + k]};
    }
    Scalar s = is_float(x.dtype()) ? Scalar(value) : Scalar(static_cast<int64_t>(value));
    return same_rank(c, ops::pad(x, p, s));
  }
  for (size_t i = 0; i < k; ++i) {
    x = pad_dim(x, c.axis(axes[i], rank), pads[i], pads[i + k], mode == "reflect");
  }
  return same_rank(c, x);
}

std::string check_pad(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "mode" && a.s() != "constant" && a.s() != "reflect" && a.s() != "edge") {
      return "pad mode '" + a.s() + "' not supported";
    }
  }
  return "";
}

// Inference: the identity and an all-true mask. Training mode (input 2): a Bernoulli keep mask
// from Ember's generator, the kept values scaled by 1 / (1 - ratio).
Outputs dropout(NodeContext& c) {
  RawTensor x = c.tensor(0);
  bool training = c.has_input(2) && c.scalar_input(2) != 0;
  double ratio = c.has_input(1) ? c.scalar_input(1) : 0.5;
  RawTensor mask = ops::full(x.shape(), Scalar(true), DType::Bool, x.device());
  Outputs out{c.input(0)};
  if (training && ratio > 0) {
    RawTensor keep =
        ops::random(x.shape(), Distribution::bernoulli(1 - ratio), x.dtype(), x.device());
    mask = ops::cast(keep, DType::Bool);
    out[0] = same_rank(c, bin(BinaryFn::Mul, bin(BinaryFn::Mul, x, keep), 1.0 / (1 - ratio)))[0];
  }
  if (c.has_output(1)) out.push_back(Value::tensor(mask, c.input(0).rank()));
  return out;
}

Outputs trilu(NodeContext& c) {
  int64_t k = c.has_input(1) ? static_cast<int64_t>(c.scalar_input(1)) : 0;
  RawTensor x = c.tensor(0);
  return same_rank(c, c.attr_int("upper", 1) ? ops::triu(x, k) : ops::tril(x, k));
}

// [N, C, H, W] <-> [N, C * b * b, H / b, W / b] (DCR: depth-column-row order; CRD otherwise).
Outputs depth_to_space(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int64_t b = c.attr_int("blocksize", 1);
  auto d = x.shape().vector();
  int64_t n = d[0], ch = d[1], h = d[2], w = d[3];
  RawTensor y;
  if (c.attr_string("mode", "DCR") == "DCR") {
    y = ops::permute(ops::reshape(x, {n, b, b, ch / (b * b), h, w}), {0, 3, 4, 1, 5, 2});
  } else {
    y = ops::permute(ops::reshape(x, {n, ch / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3});
  }
  return same_rank(c, ops::reshape(y, {n, ch / (b * b), h * b, w * b}));
}

Outputs space_to_depth(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int64_t b = c.attr_int("blocksize", 1);
  auto d = x.shape().vector();
  int64_t n = d[0], ch = d[1], h = d[2], w = d[3];
  RawTensor y = ops::permute(ops::reshape(x, {n, ch, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
  return same_rank(c, ops::reshape(y, {n, ch * b * b, h / b, w / b}));
}

}  // namespace

void register_shape(Registry& r) {
  r.add("Reshape", {reshape, {"allowzero"}});
  r.add("Transpose", {transpose, {"perm"}});
  r.add("Flatten", {flatten, {"axis"}});
  r.add("Squeeze", {squeeze, {"axes"}});
  r.add("Unsqueeze", {unsqueeze, {"axes"}});
  r.add("Expand", {expand, {}});
  r.add("Concat", {concat, {"axis"}});
  r.add("Split", {split, {"axis", "split", "num_outputs"}});
  r.add("Slice", {slice, {}});
  r.add("Tile", {tile, {}});
  r.add("Pad", {pad, {"mode", "pads", "value"}, check_pad});
  r.add("Identity", {[](NodeContext& c) { return Outputs{c.input(0)}; }, {}});
  r.add("Dropout", {dropout, {"seed", "ratio"}, nullptr, /*foldable=*/false});
  r.add("Trilu", {trilu, {"upper"}});
  r.add("DepthToSpace", {depth_to_space, {"blocksize", "mode"}});
  r.add("SpaceToDepth", {space_to_depth, {"blocksize"}});
}

}  // namespace ember::onnx_import
