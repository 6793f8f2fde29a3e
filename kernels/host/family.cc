#include "kernels/host/family.h"

namespace ember::jit {

bool is_host_view(ir::OpKind op) {
  switch (op) {
    case ir::OpKind::Reshape:
    case ir::OpKind::Permute:
    case ir::OpKind::Expand:
    case ir::OpKind::Slice:
    case ir::OpKind::Flip:
    // Not a view, but the reference's padding is a fill and one strided copy, where a compiled
    // kernel computes every element's source index: the padded output gradient a transposed
    // convolution reads (the data gradient) took 1.4 ms of the guide's 8 ms backward that way.
    case ir::OpKind::Pad:
      return true;
    default:
      return false;
  }
}

namespace {

class HostFamily final : public AnchoredFamily {
 public:
  const char* name() const override { return "host"; }
  bool anchors(const ir::Node& n) const override {
    switch (n.op) {
      case ir::OpKind::Matmul:
      case ir::OpKind::Conv:
      case ir::OpKind::Sort:
      case ir::OpKind::ScatterAdd:
        return true;
      default:
        return false;
    }
  }
  Fusion fusion() const override { return Fusion::None; }
  bool rereads_operands() const override { return true; }
  bool runs_on_host() const override { return true; }

  // Binds the stored value under each operand's views (what the primitive reads) and the
  // output; the description stays empty.
  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel, const Emitter::LayoutFn&,
                       Emitter& e) const override {
    const KernelPlan& kp = plan.kernels[kernel];
    for (ir::ValueId in : g.node(kp.anchor).inputs) {
      while (!plan.stored[in] && is_host_view(g.node(in).op)) in = g.node(in).inputs[0];
      e.binding(in, false);
    }
    e.binding(kp.anchor, true);
    e.desc().host = true;
    KernelGeometry out;
    out.work_items = 1;
    return out;
  }
};

}  // namespace

const Family& host_family() {
  static const HostFamily family;
  return family;
}

}  // namespace ember::jit
