// Control flow: If and Loop run their subgraphs. The branch taken and the trip count are read
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

}  // namespace

void register_control(Registry& r) {
  // Not folded at import: their subgraphs may read graph inputs the node does not list.
  r.add("If", {if_node, {"then_branch", "else_branch"}, nullptr, /*foldable=*/false});
  r.add("Loop", {loop, {"body"}, nullptr, /*foldable=*/false});
}

}  // namespace ember::onnx_import
