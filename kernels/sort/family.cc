#include "kernels/sort/family.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;
using ir::ValueId;

// Rank sort: each element counts the elements that go before it; O(n^2) per row, exact and
// stable (ties keep input order; NaN sorts last ascending and first descending, as on the CPU).
void lower_sort(const ir::Graph& g, Emitter& e, const KernelPlan& kp, KernelGeometry& out) {
  ValueId s = kp.anchor;
  const auto& attrs = g.node(s).get<ir::SortAttrs>();
  ValueId x = g.node(s).inputs[0];
  int axis = attrs.axis;
  int n = e.numel_param(kp.shape, "out");
  int len = e.size_param(kp.shape, axis, "axis");
  int lin = e.begin_for(SOp::ForGrid, n);
  Index idx{kp.shape, {}, lin};
  idx.dims.assign(kp.shape.rank(), -1);
  for (int d = 0; d < kp.shape.rank(); ++d) idx.dims[d] = e.dim(idx, d);
  int i = idx.dims[axis];
  int key_i = e.value(x, idx);
  auto less = [&](int a, int b) {  // a < b with NaN after every number
    int lt = e.bin(BinaryFn::Lt, a, b);
    if (!is_floating(e.type_of(a))) return lt;
    int a_nan = e.un(UnaryFn::IsNan, a), b_nan = e.un(UnaryFn::IsNan, b);
    return e.bin(BinaryFn::LogicalAnd, e.un(UnaryFn::LogicalNot, a_nan),
                 e.bin(BinaryFn::LogicalOr, b_nan, lt));
  };
  auto equal = [&](int a, int b) {
    int eq = e.bin(BinaryFn::Eq, a, b);
    if (!is_floating(e.type_of(a))) return eq;
    return e.bin(BinaryFn::LogicalOr, eq,
                 e.bin(BinaryFn::LogicalAnd, e.un(UnaryFn::IsNan, a), e.un(UnaryFn::IsNan, b)));
  };
  int rank = e.new_var(CType::Uint, e.const_u(0));
  int j = e.begin_for(SOp::ForSeq, len);
  Index jdx = idx;
  jdx.linear = -1;
  jdx.dims[axis] = j;
  int key_j = e.value(x, jdx);
  int first = attrs.descending ? less(key_i, key_j) : less(key_j, key_i);
  int tie = e.bin(BinaryFn::LogicalAnd, equal(key_j, key_i), e.bin(BinaryFn::Lt, j, i));
  int before = e.bin(BinaryFn::LogicalOr, first, tie);
  e.assign(rank, e.bin(BinaryFn::Add, e.var(rank, CType::Uint),
                       e.select(before, e.const_u(1), e.const_u(0))));
  e.end();
  Index dst = idx;
  dst.linear = -1;
  dst.dims[axis] = e.var(rank, CType::Uint);
  int value = attrs.indices ? e.cast(i, compute_type(g.type(s).dtype)) : key_i;
  e.store(s, e.linear(dst), value);
  e.end();
  out.work_items = static_cast<uint64_t>(kp.shape.numel());
}

class SortFamily final : public AnchoredFamily {
 public:
  const char* name() const override { return "sort"; }
  bool anchors(const ir::Node& n) const override { return n.op == ir::OpKind::Sort; }
  Fusion fusion() const override { return Fusion::None; }
  bool rereads_operands() const override { return true; }
  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel, const Emitter::LayoutFn&,
                       Emitter& e) const override {
    KernelGeometry out;
    lower_sort(g, e, plan.kernels[kernel], out);
    return out;
  }
};

}  // namespace

const Family& sort_family() {
  static const SortFamily family;
  return family;
}

}  // namespace ember::jit
