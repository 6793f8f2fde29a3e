#include "kernels/collective/family.h"

namespace ember::jit {
namespace {

class CollectiveFamily final : public AnchoredFamily {
 public:
  const char* name() const override { return "collective"; }
  bool anchors(const ir::Node& n) const override { return n.op == ir::OpKind::Collective; }
  Fusion fusion() const override { return Fusion::None; }
  bool rereads_operands() const override { return true; }
  bool stores_operands() const override { return true; }
  bool runs_external() const override { return true; }

  // Binds the operand and the result; the description stays empty (nothing is compiled).
  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel, const Emitter::LayoutFn&,
                       Emitter& e) const override {
    const KernelPlan& kp = plan.kernels[kernel];
    e.binding(g.node(kp.anchor).inputs[0], false);
    e.binding(kp.anchor, true);
    e.desc().host = true;
    KernelGeometry out;
    out.work_items = 1;
    return out;
  }
};

}  // namespace

const Family& collective_family() {
  static const CollectiveFamily family;
  return family;
}

}  // namespace ember::jit
