#include "kernels/pointwise/family.h"

#include "kernels/pointwise/in_place.h"
#include "kernels/pointwise/tuning.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::ValueId;

// Four elements per access (jit::vectorizable).
void lower_pointwise_vec4(const ir::Graph& g, Emitter& e, const KernelPlan& kp, int unroll,
                          KernelGeometry& out) {
  int64_t vectors = kp.shape.numel() / 4;
  int n = e.param_u("out:vectors", static_cast<uint32_t>(vectors));
  int t = e.begin_for(SOp::ForGrid, n, unroll);
  e.set_home(-1, t);
  int four = e.const_u(4);
  int base = e.bin(BinaryFn::Mul, t, four);
  std::vector<std::vector<int>> lanes(kp.outputs.size());
  for (int c = 0; c < 4; ++c) {
    int lin = c == 0 ? base : e.bin(BinaryFn::Add, base, e.const_u(c));
    for (size_t i = 0; i < kp.outputs.size(); ++i) {
      ValueId o = kp.outputs[i];
      Index idx{kp.shape, {}, lin, t, c};
      lanes[i].push_back(e.cast(e.value(o, idx), compute_type(g.type(o).dtype)));
    }
  }
  for (size_t i = 0; i < kp.outputs.size(); ++i) {
    ValueId o = kp.outputs[i];
    e.use_vec4(e.binding(o, true));
    int vec = e.expr({XOp::MakeVec, compute_type(g.type(o).dtype), 0, 0, lanes[i]});
    e.store(o, t, vec);
  }
  e.end();
  out.work_items = static_cast<uint64_t>((vectors + unroll - 1) / unroll);
}

void lower_pointwise(const ir::Graph& g, Emitter& e, const KernelPlan& kp, KernelGeometry& out) {
  const PointwiseConfig c = pointwise_config(static_cast<int>(kp.variant));
  e.desc().workgroup_size = static_cast<uint32_t>(c.threads);
  if (c.vector == 4 && vectorizable(g, kp)) return lower_pointwise_vec4(g, e, kp, c.unroll, out);
  int n = e.numel_param(kp.shape, "out");
  int lin = e.begin_for(SOp::ForGrid, n, c.unroll);
  e.set_home(lin, -1);
  // Every output is computed before any is stored: an output may take the buffer of an input
  // that dies here (in_place_donors), and a store must not land before that input's last load.
  std::vector<int> values;
  for (ValueId o : kp.outputs) values.push_back(e.value(o, Index{kp.shape, {}, lin}));
  for (size_t i = 0; i < kp.outputs.size(); ++i) e.store(kp.outputs[i], lin, values[i]);
  e.end();
  out.work_items = static_cast<uint64_t>((kp.shape.numel() + c.unroll - 1) / c.unroll);
}

class PointwiseFamily final : public Family {
 public:
  const char* name() const override { return "pointwise"; }
  bool anchors(const ir::Node&) const override { return false; }
  KernelPlan start(const ir::Graph& g, ValueId v) const override {
    KernelPlan kp;
    kp.shape = g.type(v).shape;
    return kp;
  }
  Shape index_space(const ir::Graph& g, const KernelPlan& kp) const override {
    return g.type(kp.outputs.front()).shape;
  }
  Fusion fusion() const override { return Fusion::Elementwise; }

  VariantChoice choose(const VariantContext& c, const KernelPlan& kp) const override {
    VariantChoice out;
    out.variant = static_cast<Variant>(choose_pointwise(c.g, kp, c.backend, &out.tune_key));
    return out;
  }
  Variant tune(const VariantContext& c, const KernelPlan& kp,
               const std::function<double(Variant)>& time) const override {
    return static_cast<Variant>(
        tune_pointwise(c.g, kp, c.backend, [&](int v) { return time(static_cast<Variant>(v)); }));
  }
  std::string describe(Variant v) const override {
    return config_string(pointwise_config(static_cast<int>(v)));
  }

  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel, const Emitter::LayoutFn&,
                       Emitter& e) const override {
    KernelGeometry out;
    lower_pointwise(g, e, plan.kernels[kernel], out);
    // Every thread reads its inputs at the element it writes, so an output of the same size may
    // take the buffer of an input that dies here.
    e.desc().buffers_may_alias = true;
    std::vector<bool> at_home;
    for (ValueId b : e.bindings()) at_home.push_back(e.read_only_at_home(b));
    out.in_place_candidates = in_place_donors(e.desc(), e.bindings(), e.writes(), at_home);
    return out;
  }
};

}  // namespace

const Family& pointwise_family() {
  static const PointwiseFamily family;
  return family;
}

}  // namespace ember::jit
