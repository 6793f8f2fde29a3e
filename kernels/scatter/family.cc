#include "kernels/scatter/family.h"

#include "ir/builder.h"
#include "ir/rewrite.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::ValueId;

// The value an index is an expand of along dims other than `axis` (an embedding's gradient
// scatters token ids expanded over the embedding width), else the index itself.
ValueId unexpanded(const ir::Graph& g, ValueId index, int axis) {
  const ir::Node& n = g.node(index);
  if (n.op != ir::OpKind::Expand) return index;
  return g.type(n.inputs[0]).shape[axis] == n.type.shape[axis] ? n.inputs[0] : index;
}

// Whether a scatter's index is ascending along `axis` by construction: a gather of some b by
// b's stable ascending argsort along the axis (as sorted_scatter writes it), possibly expanded
// along other dims. Equal indices then keep their original order.
bool ascending_by_construction(const ir::Graph& g, ValueId index, int axis) {
  const ir::Node& n = g.node(unexpanded(g, index, axis));
  if (n.op != ir::OpKind::Gather || n.get<ir::AxisAttrs>().axis != axis) return false;
  const ir::Node& perm = g.node(n.inputs[1]);
  if (perm.op != ir::OpKind::Sort || perm.inputs[0] != n.inputs[0]) return false;
  const auto& a = perm.get<ir::SortAttrs>();
  return a.axis == axis && !a.descending && a.indices;
}

constexpr double kMinSortedScan = 1 << 22;

// Element steps of the scan (each target element reads every index along the axis) against
// the sorted form (a rank sort of the unexpanded index, quadratic along the axis, then a
// binary search and the target's own values).
bool sorting_pays(const ir::Graph& g, const ir::Node& s) {
  const int axis = s.get<ir::AxisAttrs>().axis;
  if (ascending_by_construction(g, s.inputs[1], axis)) return false;
  const Shape& is = g.type(s.inputs[1]).shape;
  const double len = static_cast<double>(is[axis]);
  const double scan = static_cast<double>(s.type.shape.numel()) * len;
  const double base = static_cast<double>(g.type(unexpanded(g, s.inputs[1], axis)).shape.numel());
  // Small scatters stay one kernel: sorting adds three (the sort, two gathers).
  return len >= 16 && scan >= kMinSortedScan && 4 * base * len < scan;
}

// Scatter s with its index sorted along the axis: one stable argsort of the (unexpanded)
// index, the index and the values gathered in that order. Each target then adds its values in
// their original order: the same sums as the scan's (a -0.0 start aside).
ValueId sorted_scatter(ir::Builder& b, const ir::Graph& g, const ir::Node& s,
                       const std::vector<ValueId>& remap) {
  const int axis = s.get<ir::AxisAttrs>().axis;
  const ValueId index = s.inputs[1];
  const ValueId base = remap[unexpanded(g, index, axis)];
  const ValueId perm = b.sort(base, axis, /*descending=*/false, /*indices=*/true);
  ValueId sorted = b.gather(base, axis, perm), order = perm;
  const Shape& is = g.type(index).shape;
  if (b.type(sorted).shape != is) {
    sorted = b.expand(sorted, is);
    order = b.expand(perm, is);
  }
  const ValueId values = b.gather(remap[s.inputs[2]], axis, order);
  return b.scatter_add(remap[s.inputs[0]], axis, sorted, values);
}

// The target element's position along the axis, the index's extent check over the other dims,
// and the index position clamped into the index (shared by both lowerings).
struct TargetIndex {
  Index jdx;          // into the index (and values); its axis entry is set by the loop
  int in_range = -1;  // the element's other coordinates lie inside the index
  int target = -1;    // the element's coordinate along the axis
};

TargetIndex target_index(Emitter& e, Index& idx, const Shape& is, int axis) {
  TargetIndex t{Index{is, std::vector<int>(is.rank(), -1), -1}};
  for (int d = 0; d < is.rank(); ++d) {
    if (d == axis) continue;
    int dd = e.dim(idx, d);
    int size = e.size_param(is, d, "index");
    int ok = e.bin(BinaryFn::Lt, dd, size);
    t.in_range = t.in_range < 0 ? ok : e.bin(BinaryFn::LogicalAnd, t.in_range, ok);
    t.jdx.dims[d] = e.umin(dd, e.bin(BinaryFn::Sub, size, e.const_u(1)));
  }
  if (t.in_range < 0) t.in_range = e.const_b(true);
  t.target = e.dim(idx, axis);
  return t;
}

// Index j lies outside [0, xsize).
int out_of_range(Emitter& e, int j, int xsize) {
  CType jt = e.type_of(j);
  int bad = e.bin(BinaryFn::Ge, j, e.cast(xsize, jt));
  if (jt == CType::Uint) return bad;
  return e.bin(BinaryFn::LogicalOr, bad, e.bin(BinaryFn::Lt, j, e.cast(e.const_u(0), jt)));
}

// Scan: each target element reads every index along the axis and adds the values that hit it.
void scan_sum(const ir::Graph& g, Emitter& e, ValueId node, TargetIndex& t, int acc, CType type,
              int xsize) {
  const ir::Node& s = g.node(node);
  const int axis = s.get<ir::AxisAttrs>().axis;
  int i = e.begin_for(SOp::ForSeq, e.size_param(g.type(s.inputs[1]).shape, axis, "index"));
  t.jdx.dims[axis] = i;
  int j = e.value(s.inputs[1], t.jdx);
  e.error_if(e.bin(BinaryFn::LogicalAnd, t.in_range, out_of_range(e, j, xsize)),
             {ErrorKind::IndexOutOfRange, node, axis}, j, xsize);
  int hit = e.bin(BinaryFn::LogicalAnd, t.in_range,
                  e.bin(BinaryFn::Eq, j, e.cast(t.target, e.type_of(j))));
  int v = e.value(s.inputs[2], t.jdx);
  e.assign(acc,
           e.bin(BinaryFn::Add, e.var(acc, type), e.select(hit, v, e.cast(e.const_u(0), type))));
  e.end();
}

// The first position along the axis whose index is not below the target (`upper`: above it),
// by a binary search of `steps` halvings over [0, len) of an ascending index.
int bound(Emitter& e, ValueId index, TargetIndex& t, int axis, int len, int steps, bool upper) {
  int lo = e.new_var(CType::Uint, e.const_u(0)), hi = e.new_var(CType::Uint, len);
  e.begin_for(SOp::ForSeq, steps);
  int l = e.var(lo, CType::Uint), h = e.var(hi, CType::Uint);
  int mid = e.bin(BinaryFn::Div, e.bin(BinaryFn::Add, l, h), e.const_u(2));
  t.jdx.dims[axis] = e.umin(mid, e.bin(BinaryFn::Sub, len, e.const_u(1)));
  int j = e.value(index, t.jdx);
  int target = e.cast(t.target, e.type_of(j));
  int right = e.bin(upper ? BinaryFn::Le : BinaryFn::Lt, j, target);  // the bound lies after mid
  int active = e.bin(BinaryFn::Lt, l, h);
  e.assign(lo, e.select(e.bin(BinaryFn::LogicalAnd, active, right),
                        e.bin(BinaryFn::Add, mid, e.const_u(1)), l));
  e.assign(hi, e.select(e.bin(BinaryFn::LogicalAnd, active, e.un(ir::UnaryFn::LogicalNot, right)),
                        mid, h));
  e.end();
  return e.var(lo, CType::Uint);
}

// Sorted index (ascending_by_construction): two binary searches find the target's run of
// equal indices, then its values are added in order. Out-of-range indices sort to the ends:
// the first and last index are checked.
void sorted_sum(const ir::Graph& g, Emitter& e, ValueId node, TargetIndex& t, int acc, CType type,
                int xsize) {
  const ir::Node& s = g.node(node);
  const int axis = s.get<ir::AxisAttrs>().axis;
  const Shape& is = g.type(s.inputs[1]).shape;
  int len = e.size_param(is, axis, "index");
  int steps = 1;
  while ((int64_t{1} << steps) <= is[axis]) ++steps;
  int nsteps = e.param_u("steps", static_cast<uint32_t>(steps));
  t.jdx.dims[axis] = e.const_u(0);
  int first = e.value(s.inputs[1], t.jdx);
  t.jdx.dims[axis] = e.bin(BinaryFn::Sub, len, e.const_u(1));
  int last = e.value(s.inputs[1], t.jdx);
  int bad_first = out_of_range(e, first, xsize);
  e.error_if(e.bin(BinaryFn::LogicalAnd, t.in_range,
                   e.bin(BinaryFn::LogicalOr, bad_first, out_of_range(e, last, xsize))),
             {ErrorKind::IndexOutOfRange, node, axis}, e.select(bad_first, first, last), xsize);
  int lo = bound(e, s.inputs[1], t, axis, len, nsteps, false);
  int begin = e.new_var(CType::Uint, lo);
  int hi = bound(e, s.inputs[1], t, axis, len, nsteps, true);
  int count =
      e.select(t.in_range, e.bin(BinaryFn::Sub, hi, e.var(begin, CType::Uint)), e.const_u(0));
  int i = e.begin_for(SOp::ForSeq, count);
  t.jdx.dims[axis] = e.bin(BinaryFn::Add, e.var(begin, CType::Uint), i);
  e.assign(acc, e.bin(BinaryFn::Add, e.var(acc, type), e.value(s.inputs[2], t.jdx)));
  e.end();
}

// Scatter-add without atomics: each target element sums the values whose index points at it,
// in their order along the axis (deterministic).
void lower_scatter(const ir::Graph& g, Emitter& e, const KernelPlan& kp, KernelGeometry& out) {
  ValueId s = kp.anchor;
  const int axis = g.node(s).get<ir::AxisAttrs>().axis;
  const ValueId index = g.node(s).inputs[1];
  const Shape& is = g.type(index).shape;
  int lin = e.begin_for(SOp::ForGrid, e.numel_param(kp.shape, "out"));
  Index idx{kp.shape, {}, lin};
  idx.dims.assign(kp.shape.rank(), -1);
  int acc_init = e.value(g.node(s).inputs[0], idx);
  CType t = e.type_of(acc_init);
  int acc = e.new_var(t, acc_init);
  if (is.numel() > 0) {
    TargetIndex target = target_index(e, idx, is, axis);
    int xsize = e.size_param(kp.shape, axis, "target");
    if (ascending_by_construction(g, index, axis)) {
      sorted_sum(g, e, s, target, acc, t, xsize);
    } else {
      scan_sum(g, e, s, target, acc, t, xsize);
    }
  }
  e.store(s, lin, e.var(acc, t));
  e.end();
  out.work_items = static_cast<uint64_t>(kp.shape.numel());
}

class ScatterFamily final : public AnchoredFamily {
 public:
  const char* name() const override { return "scatter"; }
  bool anchors(const ir::Node& n) const override { return n.op == ir::OpKind::ScatterAdd; }
  Fusion fusion() const override { return Fusion::None; }
  bool rereads_operands() const override { return true; }

  // Before planning: a scatter whose scan would read the index far more often than sorting it
  // costs (an embedding's gradient over a large vocabulary) gets its index sorted.
  bool rewrites(const ir::Graph& g, const runtime::Backend&) const override {
    for (ValueId v = 0; v < g.size(); ++v) {
      if (g.node(v).op == ir::OpKind::ScatterAdd && sorting_pays(g, g.node(v))) return true;
    }
    return false;
  }
  // The index's expand, read by nothing else once the sorted scatter reads its unexpanded
  // form, is dropped by ir::rewrite (an unfused plan would store it).
  ir::Graph rewrite(const ir::Graph& g, std::vector<ValueId>& outputs, const runtime::Backend&,
                    std::vector<ValueId>* old_to_new) const override {
    return ir::rewrite(
        g, outputs,
        [&](ir::Builder& b, const ir::Node& n, ValueId, const ir::ValueIds&,
            const std::vector<ValueId>& remap) -> std::optional<ValueId> {
          if (n.op != ir::OpKind::ScatterAdd || !sorting_pays(g, n)) return std::nullopt;
          return sorted_scatter(b, g, n, remap);
        },
        old_to_new);
  }

  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel, const Emitter::LayoutFn&,
                       Emitter& e) const override {
    KernelGeometry out;
    lower_scatter(g, e, plan.kernels[kernel], out);
    return out;
  }
};

}  // namespace

const Family& scatter_family() {
  static const ScatterFamily family;
  return family;
}

}  // namespace ember::jit
