#include "jit/exec/reduce_in_slabs.h"

#include <algorithm>
#include <map>

namespace ember::jit {
namespace {

// Expressions smaller than this are stored whole; slabs hold about this many elements.
constexpr int64_t kMinElements = int64_t{1} << 22;
constexpr int64_t kSlabElements = int64_t{1} << 18;

bool is_pointwise(ir::OpKind op) {
  return op == ir::OpKind::Unary || op == ir::OpKind::Binary || op == ir::OpKind::Where ||
         op == ir::OpKind::Cast;
}

// The pointwise nodes of full shape `shape` that feed `root` and nothing else (a tree: each has
// one use), ascending.
std::vector<ir::ValueId> cone(const ir::Graph& g, ir::ValueId root, std::span<const int> uses) {
  std::vector<ir::ValueId> nodes, todo = {root};
  const Shape& shape = g.type(root).shape;
  while (!todo.empty()) {
    ir::ValueId id = todo.back();
    todo.pop_back();
    const ir::Node& n = g.node(id);
    if (!is_pointwise(n.op) || uses[id] != 1 || !(n.type.shape == shape)) continue;
    nodes.push_back(id);
    for (ir::ValueId in : n.inputs) todo.push_back(in);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

// Rows `[lo, hi)` of dim `dim` of `a` (a view), or `a` itself where that dim is broadcast.
runtime::Array rows_of(const runtime::Array& a, int dim, int64_t lo, int64_t hi,
                       runtime::Backend& backend) {
  if (a.type.shape[dim] == 1) return a;
  ir::Node slice{ir::OpKind::Slice, {}, a.type, ir::SliceAttrs{}, "reduce in slabs"};
  auto& attrs = std::get<ir::SliceAttrs>(slice.attrs);
  attrs.starts.assign(a.type.shape.rank(), 0);
  attrs.steps.assign(a.type.shape.rank(), 1);
  attrs.starts[dim] = lo;
  slice.type.shape[dim] = hi - lo;
  runtime::Array args[] = {a};
  return backend.run_primitive(slice, args);
}

// `n` run on rows [lo, hi) of its dim `dim`.
runtime::Array run_on_rows(const ir::Node& n, std::span<const runtime::Array> args, int dim,
                           int64_t rows, runtime::Backend& backend) {
  ir::Node part = n;
  part.type.shape[dim] = rows;
  return backend.run_primitive(part, args);
}

}  // namespace

std::vector<SlabPlan> plan_slabs(const ir::Graph& g, std::span<const int> uses) {
  std::vector<SlabPlan> plans;
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    const ir::Node& r = g.node(id);
    if (r.op != ir::OpKind::Reduce) continue;
    const Shape& shape = g.type(r.inputs[0]).shape;
    if (shape.numel() < kMinElements) continue;
    int axis = r.get<ir::ReduceAttrs>().axis, dim = -1;
    for (int d = 0; d < shape.rank() && dim < 0; ++d) {
      if (d != axis && shape[d] > 1) dim = d;
    }
    if (dim < 0) continue;  // a reduction to one value has no rows to cut
    std::vector<ir::ValueId> nodes = cone(g, r.inputs[0], uses);
    if (nodes.empty()) continue;
    int64_t row = shape.numel() / shape[dim];
    int64_t rows = std::max<int64_t>(1, kSlabElements / row);
    if (rows >= shape[dim]) continue;
    std::vector<ir::ValueId> leaves;
    for (ir::ValueId n : nodes) {
      for (ir::ValueId in : g.node(n).inputs) {
        if (!std::binary_search(nodes.begin(), nodes.end(), in)) leaves.push_back(in);
      }
    }
    plans.push_back({id, std::move(nodes), std::move(leaves), dim, rows});
  }
  return plans;
}

runtime::Array run_slabs(const ir::Graph& g, const SlabPlan& p,
                         const std::function<const runtime::Array&(ir::ValueId)>& value,
                         runtime::Backend& backend) {
  const ir::Node& reduce = g.node(p.reduce);
  const int64_t total = g.type(reduce.inputs[0]).shape[p.dim];
  std::vector<runtime::Array> parts;
  for (int64_t lo = 0; lo < total; lo += p.rows_per_slab) {
    int64_t hi = std::min(total, lo + p.rows_per_slab);
    std::map<ir::ValueId, runtime::Array> slab;
    std::vector<runtime::Array> args;
    for (ir::ValueId id : p.nodes) {
      const ir::Node& n = g.node(id);
      args.clear();
      for (ir::ValueId in : n.inputs) {
        auto it = slab.find(in);
        args.push_back(it != slab.end() ? it->second : rows_of(value(in), p.dim, lo, hi, backend));
      }
      slab[id] = run_on_rows(n, args, p.dim, hi - lo, backend);
      for (ir::ValueId in : n.inputs) slab.erase(in);  // each node of the plan has one use
    }
    runtime::Array in[] = {slab.at(reduce.inputs[0])};
    parts.push_back(run_on_rows(reduce, in, p.dim, hi - lo, backend));
  }
  ir::Node concat{ir::OpKind::Concat, {}, reduce.type, ir::AxisAttrs{p.dim}, reduce.label};
  return backend.run_primitive(concat, parts);
}

}  // namespace ember::jit
