// Emitters of the layout ops on device tensors: Reshape, Transpose, Flatten, (Un)Squeeze,
// Expand, Concat, Slice, Gather, Identity, Dropout, Shape and Size. Shapes given as inputs are
// host values, so their run-time dims flow into the calls; axes and perms are constants.
#include <algorithm>

#include "import/onnx/codegen/emitters.h"

namespace ember::onnx_import::codegen {
namespace {

using Outputs = std::vector<Sym>;

std::string r(int rank) { return std::to_string(rank); }

// Axes normalised against `rank`, sorted and unique.
std::vector<int64_t> norm_axes(EmitContext& c, std::vector<int64_t> axes, int rank) {
  for (auto& a : axes) a = c.attrs().axis(a, rank);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

// Axes from input 1 (opset 13) or the attribute.
std::vector<int64_t> axes_of(EmitContext& c) {
  return c.has_input(1) ? c.const_ints(1) : c.attrs().attr_ints("axes");
}

Outputs reshape(EmitContext& c) {
  const auto& shape = c.host(1);
  bool allowzero = c.attrs().attr_int("allowzero", 0);
  std::string x = c.tensor(0);
  return {c.device("reshape(" + x + ", " + r(c.rank(0)) + ", " + cpp_list(shape) + ", " +
                       (allowzero ? "true" : "false") + ")",
                   static_cast<int>(shape.size()))};
}

Outputs transpose(EmitContext& c) {
  int rank = c.rank(0);
  std::vector<int64_t> perm = c.attrs().attr_ints("perm");
  if (perm.empty()) {
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  if (rank == 0) return {c.in(0)};
  return {c.device("ops::permute(" + c.tensor(0) + ", " + cpp_ints(perm) + ")", rank)};
}

Outputs flatten(EmitContext& c) {
  int rank = c.rank(0);
  int64_t axis = c.attrs().attr_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) c.unsupported("axis out of range");
  return {
      c.device("flatten(" + c.tensor(0) + ", " + r(rank) + ", " + std::to_string(axis) + ")", 2)};
}

Outputs squeeze(EmitContext& c) {
  std::vector<int64_t> axes = norm_axes(c, axes_of(c), c.rank(0));
  // Without axes the result's rank depends on which dims are 1 when it runs.
  if (axes.empty()) c.unsupported("Squeeze without axes");
  int out = c.rank(0) - static_cast<int>(axes.size());
  return {
      c.device("squeeze(" + c.tensor(0) + ", " + r(c.rank(0)) + ", " + cpp_ints(axes) + ")", out)};
}

Outputs unsqueeze(EmitContext& c) {
  std::vector<int64_t> in = axes_of(c);
  int out = c.rank(0) + static_cast<int>(in.size());
  std::vector<int64_t> axes = norm_axes(c, in, out);
  return {c.device("unsqueeze(" + c.tensor(0) + ", " + r(c.rank(0)) + ", " + cpp_ints(axes) + ")",
                   out)};
}

Outputs expand(EmitContext& c) {
  const auto& shape = c.host(1);
  int out = std::max(c.rank(0), static_cast<int>(shape.size()));
  return {
      c.device("expand(" + c.tensor(0) + ", " + r(c.rank(0)) + ", " + cpp_list(shape) + ")", out)};
}

Outputs concat(EmitContext& c) {
  int rank = c.rank(0);
  int64_t axis = c.attrs().axis(c.attrs().attr_int("axis", 0), rank);
  std::vector<std::string> xs;
  for (int i = 0; i < c.num_inputs(); ++i) xs.push_back(c.tensor(i));
  return {c.device("ops::cat(" + cpp_list(xs) + ", " + std::to_string(axis) + ")", rank)};
}

Outputs slice(EmitContext& c) {
  int rank = c.rank(0);
  std::vector<std::string> starts = c.host(1), ends = c.host(2);
  std::vector<int64_t> axes;
  if (c.has_input(3)) {
    for (int64_t a : c.const_ints(3)) axes.push_back(c.attrs().axis(a, rank));
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<std::string> steps(starts.size(), "1");
  if (c.has_input(4)) steps = c.host(4);
  return {c.device("slice(" + c.tensor(0) + ", " + cpp_list(starts) + ", " + cpp_list(ends) + ", " +
                       cpp_ints(axes) + ", " + cpp_list(steps) + ")",
                   rank)};
}

Outputs gather(EmitContext& c) {
  int rank = c.rank(0), irank = c.rank(1);
  int64_t axis = c.attrs().axis(c.attrs().attr_int("axis", 0), rank);
  std::string x = c.tensor(0), idx = c.tensor(1);
  return {c.device("gather(" + x + ", " + r(rank) + ", " + idx + ", " + r(irank) + ", " +
                       std::to_string(axis) + ")",
                   rank - 1 + irank)};
}

// The dims of a device tensor, read when forward runs.
Outputs shape(EmitContext& c) {
  const Sym& x = c.in(0);
  int64_t rank = x.rank, start = c.attrs().attr_int("start", 0),
          end = c.attrs().attr_int("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, start, rank);
  std::vector<std::string> dims;
  for (int64_t d = start; d < end; ++d) {
    dims.push_back(x.host ? std::to_string(x.elems.size())
                          : x.var + ".shape()[" + std::to_string(d) + "]");
  }
  return {c.host_value(dims, 1, DType::I64, /*bind=*/false)};
}

Outputs size(EmitContext& c) {
  const Sym& x = c.in(0);
  if (x.host) return {c.host_value({std::to_string(x.elems.size())}, 0, DType::I64)};
  return {c.host_value({x.var + ".shape().numel()"}, 0, DType::I64)};
}

}  // namespace

void add_shape_emitters(std::map<std::string, EmitEntry>& t) {
  t["Reshape"] = {reshape, nullptr};
  t["Transpose"] = {transpose, nullptr};
  t["Flatten"] = {flatten, nullptr};
  t["Squeeze"] = {squeeze, nullptr};
  t["Unsqueeze"] = {unsqueeze, nullptr};
  t["Expand"] = {expand, nullptr};
  t["Concat"] = {concat, nullptr};
  t["Slice"] = {slice, nullptr};
  t["Gather"] = {gather, nullptr};
  t["Shape"] = {shape, shape};
  t["Size"] = {size, size};
  auto identity = [](EmitContext& c) { return Outputs{c.in(0)}; };
  t["Identity"] = {identity, identity};
  // Inference: the input unchanged (the mask output is not generated).
  t["Dropout"] = {[](EmitContext& c) {
                    if (c.has_output(1)) c.unsupported("Dropout's mask output");
                    if (c.has_input(2) && c.const_ints(2) != std::vector<int64_t>{0}) {
                      c.unsupported("Dropout in training mode");
                    }
                    return Outputs{c.in(0)};
                  },
                  nullptr};
}

}  // namespace ember::onnx_import::codegen
