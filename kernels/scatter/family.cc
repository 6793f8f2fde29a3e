#include "kernels/scatter/family.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::ValueId;

// Scatter-add without atomics: each target element sums the values whose index points at it.
void lower_scatter(const ir::Graph& g, Emitter& e, const KernelPlan& kp, KernelGeometry& out) {
  ValueId s = kp.anchor;
  int axis = g.node(s).get<ir::AxisAttrs>().axis;
  ValueId x = g.node(s).inputs[0], index = g.node(s).inputs[1], values = g.node(s).inputs[2];
  const Shape& is = g.type(index).shape;
  int n = e.numel_param(kp.shape, "out");
  int lin = e.begin_for(SOp::ForGrid, n);
  Index idx{kp.shape, {}, lin};
  idx.dims.assign(kp.shape.rank(), -1);
  int acc_init = e.value(x, idx);
  CType t = e.type_of(acc_init);
  int acc = e.new_var(t, acc_init);
  if (is.numel() > 0) {
    int in_range = -1;
    Index jdx{is, std::vector<int>(is.rank(), -1), -1};
    for (int d = 0; d < is.rank(); ++d) {
      if (d == axis) continue;
      int dd = e.dim(idx, d);
      int size = e.size_param(is, d, "index");
      int ok = e.bin(BinaryFn::Lt, dd, size);
      in_range = in_range < 0 ? ok : e.bin(BinaryFn::LogicalAnd, in_range, ok);
      jdx.dims[d] = e.umin(dd, e.bin(BinaryFn::Sub, size, e.const_u(1)));
    }
    if (in_range < 0) in_range = e.const_b(true);
    int target = e.dim(idx, axis);
    int len = e.size_param(is, axis, "index");
    int xsize = e.size_param(kp.shape, axis, "target");
    int i = e.begin_for(SOp::ForSeq, len);
    jdx.dims[axis] = i;
    int j = e.value(index, jdx);
    CType jt = e.type_of(j);
    int bad = e.bin(BinaryFn::Ge, j, e.cast(xsize, jt));
    if (jt != CType::Uint) {
      bad = e.bin(BinaryFn::LogicalOr, bad, e.bin(BinaryFn::Lt, j, e.cast(e.const_u(0), jt)));
    }
    e.error_if(e.bin(BinaryFn::LogicalAnd, in_range, bad), {ErrorKind::IndexOutOfRange, s, axis}, j,
               xsize);
    int hit = e.bin(BinaryFn::LogicalAnd, in_range, e.bin(BinaryFn::Eq, j, e.cast(target, jt)));
    int v = e.value(values, jdx);
    e.assign(acc, e.bin(BinaryFn::Add, e.var(acc, t), e.select(hit, v, e.cast(e.const_u(0), t))));
    e.end();
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
