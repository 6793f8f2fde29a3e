// Control flow: If, Loop and Scan run their subgraphs. The branch taken and the trip count are read
// on the host when the node runs (a condition computed on the device is read there), so the
// graph recorded is the unrolled one.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

const ::onnx::GraphProto& graph_attr(NodeContext& c, const std::string& name) {
  const auto* a = c.attr(name);
  if (!a || !a->has_g()) c.fail("no subgraph '" + name + "'");
  return a->g();
}

Outputs if_node(NodeContext& c) {
  bool cond = c.scalar_input(0) != 0;
  return c.run_subgraph(graph_attr(c, cond ? "then_branch" : "else_branch"), {});
}

Value scalar_i64(int64_t v) { return Value::known(TensorData(std::vector<int64_t>{v}, Shape{})); }
Value scalar_bool(bool v) { return Value::known(TensorData(std::vector<bool>{v}, Shape{})); }

// Scan outputs: each iteration's value stacked along a new leading dim.
Value stack(NodeContext& c, const std::vector<Value>& steps) {
  if (steps.empty()) c.fail("a scan output of a loop that ran no iteration");
  std::vector<RawTensor> parts;
  for (const auto& v : steps) {
    std::vector<int64_t> dims = v.dims();
    dims.insert(dims.begin(), 1);
    parts.push_back(ops::reshape(v.on(c.device()), dims));
  }
  return Value::tensor(ops::cat(parts, 0), steps[0].rank() + 1);
}

Outputs loop(NodeContext& c) {
  const ::onnx::GraphProto& body = graph_attr(c, "body");
  int64_t max_trips = c.has_input(0) ? static_cast<int64_t>(c.scalar_input(0)) : INT64_MAX;
  bool cond = c.has_input(1) ? c.scalar_input(1) != 0 : true;
  std::vector<Value> carried;
  for (int i = 2; i < c.num_inputs(); ++i) carried.push_back(c.input(i));
  size_t n_carried = carried.size();
  std::vector<std::vector<Value>> scans;
  for (int64_t i = 0; i < max_trips && cond; ++i) {
    std::vector<Value> in{scalar_i64(i), scalar_bool(cond)};
    in.insert(in.end(), carried.begin(), carried.end());
    std::vector<Value> out = c.run_subgraph(body, in);
    cond = out.at(0).data().value_at(0) != 0;
    std::copy(out.begin() + 1, out.begin() + 1 + n_carried, carried.begin());
    scans.resize(out.size() - 1 - n_carried);
    for (size_t k = 0; k < scans.size(); ++k) scans[k].push_back(out[1 + n_carried + k]);
  }
  Outputs result = carried;
  for (const auto& s : scans) result.push_back(stack(c, s));
  return result;
}

// Slice t of a scan input along `axis`, without that axis.
Value scan_slice(NodeContext& c, const Value& v, int64_t axis, int64_t t) {
  std::vector<int64_t> dims = v.dims();
  RawTensor s = ops::narrow(v.on(c.device()), axis, t, 1);
  dims.erase(dims.begin() + axis);
  return Value::tensor(ops::reshape(s, dims.empty() ? std::vector<int64_t>{1} : dims),
                       static_cast<int>(dims.size()));
}

// Values of the iterations stacked along `axis` (in reverse when `reverse`).
Value stack_along(NodeContext& c, std::vector<Value> steps, int64_t axis, bool reverse) {
  if (reverse) std::reverse(steps.begin(), steps.end());
  Value s = stack(c, steps);
  if (axis == 0) return s;
  int rank = s.rank();
  return Value::tensor(ops::movedim(s.on(c.device()), {0}, {c.axis(axis, rank)}), rank);
}

// The body runs once per slice of the scan inputs, carrying the states from one to the next.
Outputs scan(NodeContext& c) {
  const ::onnx::GraphProto& body = graph_attr(c, "body");
  int64_t m = c.attr_int("num_scan_inputs", 0);
  int64_t n = c.num_inputs() - m;
  std::vector<int64_t> in_axes = c.attr_ints("scan_input_axes", std::vector<int64_t>(m, 0));
  std::vector<int64_t> in_dirs = c.attr_ints("scan_input_directions", std::vector<int64_t>(m, 0));
  std::vector<Value> states;
  for (int64_t i = 0; i < n; ++i) states.push_back(c.input(static_cast<int>(i)));
  for (int64_t j = 0; j < m; ++j) in_axes[j] = c.axis(in_axes[j], c.input(n + j).rank());
  int64_t steps = c.input(static_cast<int>(n)).dims()[in_axes[0]];
  std::vector<std::vector<Value>> outs;
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<Value> in = states;
    for (int64_t j = 0; j < m; ++j) {
      int64_t at = in_dirs[j] ? steps - 1 - t : t;
      in.push_back(scan_slice(c, c.input(static_cast<int>(n + j)), in_axes[j], at));
    }
    std::vector<Value> out = c.run_subgraph(body, in);
    std::copy(out.begin(), out.begin() + n, states.begin());
    outs.resize(out.size() - n);
    for (size_t k = 0; k < outs.size(); ++k) outs[k].push_back(out[n + k]);
  }
  std::vector<int64_t> out_axes = c.attr_ints("scan_output_axes");
  std::vector<int64_t> out_dirs = c.attr_ints("scan_output_directions");
  Outputs result = states;
  for (size_t k = 0; k < outs.size(); ++k) {
    int64_t axis = k < out_axes.size() ? out_axes[k] : 0;
    result.push_back(stack_along(c, outs[k], axis, k < out_dirs.size() && out_dirs[k]));
  }
  return result;
}

}  // namespace

void register_control(Registry& r) {
  // Not folded at import: their subgraphs may read graph inputs the node does not list.
  r.add("If", {if_node, {"then_branch", "else_branch"}, nullptr, /*foldable=*/false});
  r.add("Loop", {loop, {"body"}, nullptr, /*foldable=*/false});
  r.add("Scan", {scan,
                 {"body", "num_scan_inputs", "scan_input_axes", "scan_input_directions",
                  "scan_output_axes", "scan_output_directions"},
                 nullptr,
                 /*foldable=*/false});
}

}  // namespace ember::onnx_import
