#pragma once
// A kernel family: one kind of kernel template (pointwise, row, matmul, sort, scatter) behind one
// interface. The planner asks it which nodes start its kernels and how they grow by fusion; the
// freeze stage asks it for a variant (forced, stored, tuned or heuristic; always one it admits
// for the kernel's operands on the device, so no fallback is ever discovered while lowering);
// the lowering asks it to emit the kernel. Families are listed once, in kernels/registry.cc.
#include <functional>
#include <string>
#include <vector>

#include "autotune/key.h"
#include "ir/graph.h"
#include "jit/codegen/emitter.h"
#include "kernels/kernel_plan.h"
#include "runtime/backend.h"

namespace ember::jit {

// How kernels of a family grow while planning.
enum class Fusion : uint8_t {
  Elementwise,  // takes any value over its index space whose inputs are ready (pointwise)
  Epilogue,     // takes values of epilogue_shapes that read what the kernel computes
  None,         // its anchor only (with views and casts of its operands inlined)
};

// What choosing and tuning a variant see: the graph, the plan (which values are stored), the
// layout every stored value will have when the kernel runs (flush inputs as given, computed
// values contiguous), and the device.
struct VariantContext {
  const ir::Graph& g;
  const Plan& plan;
  const Emitter::LayoutFn& layout;
  const runtime::Backend& backend;
};

struct VariantChoice {
  Variant variant = 0;
  // Non-empty: EMBER_AUTOTUNE=on and no stored winner, so the freeze stage tunes this key now.
  std::string tune_key;
};

// What a lowered kernel's launch needs from its family besides the description.
struct KernelGeometry {
  uint64_t work_items = 0;  // grid-stride loops cover this many threads, or rows when per_row
  bool per_row = false;
  std::vector<runtime::TiledView> tiled_views;  // copy-engine operands, by binding index
  // Inputs every thread reads only at the element it writes (pointwise kernels): an output of
  // the same size may take such an input's buffer when the input dies here.
  std::vector<ir::ValueId> in_place_candidates;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual const char* name() const = 0;

  // ---- planning
  // Whether a kernel of this family starts at node n. The pointwise family anchors nothing: it
  // takes every stored value no other family anchors.
  virtual bool anchors(const ir::Node& n) const = 0;
  // The kernel started at v (which this family anchors, or any value for pointwise).
  virtual KernelPlan start(const ir::Graph& g, ir::ValueId v) const = 0;
  // kp's index space in graph g (a plan reused for a graph of the same structure, other sizes).
  virtual Shape index_space(const ir::Graph& g, const KernelPlan& kp) const = 0;
  virtual Fusion fusion() const = 0;
  // Epilogue families: the shapes a fused value may have.
  virtual std::vector<Shape> epilogue_shapes(const KernelPlan& kp) const { return {kp.shape}; }
  // Whether anchor v may join kernel kp (a row kernel takes other reductions of its rows).
  virtual bool takes_anchor(const ir::Graph&, const KernelPlan&, ir::ValueId) const {
    return false;
  }
  // Whether anchor v joins kernel kp as another output computed from the same operands in the
  // same pass (attention's log-sum-exp beside its output).
  virtual bool takes_sibling(const ir::Graph&, const KernelPlan&, ir::ValueId) const {
    return false;
  }
  // Whether anchor v, which kp takes, joins it as a total: a reduction over all of the kernel's
  // rows of a value per row (KernelPlan::totals), computed after the kernel's last row.
  virtual bool takes_as_total(const ir::Graph&, const KernelPlan&, ir::ValueId) const {
    return false;
  }
  // Whether the anchor reads its operands many times per output: anything more than index
  // arithmetic (views, casts, constants) feeding them is stored first.
  virtual bool rereads_operands() const { return false; }
  // Whether operand `in` of anchor v is stored although it is index arithmetic over stored
  // values (`stored`, as chosen so far): a matmul's tile templates read strided views only.
  virtual bool stores_operand(const ir::Graph&, ir::ValueId v, ir::ValueId in,
                              const std::vector<char>& stored) const {
    (void)v;
    (void)in;
    (void)stored;
    return false;
  }
  // Whether the kernel is the backend's own primitive (the CPU target's host family): its
  // operands are stored values or views of them, never expressions (kernels/host/family.h).
  virtual bool runs_on_host() const { return false; }
  // Whether every operand is stored itself (contiguous, never a view or an expression).
  virtual bool stores_operands() const { return false; }
  // Whether the kernel is work another library does between the compiled kernels (a collective
  // through NCCL: kernels/collective/family.h); its description holds no code.
  virtual bool runs_external() const { return false; }

  // ---- rewrites before planning (split-K, long reductions)
  virtual bool rewrites(const ir::Graph&, const runtime::Backend&) const { return false; }
  // `old_to_new` receives what became of each node of g (ir::rewrite's map).
  virtual ir::Graph rewrite(const ir::Graph& g, std::vector<ir::ValueId>&, const runtime::Backend&,
                            std::vector<ir::ValueId>* old_to_new) const {
    if (old_to_new != nullptr) {
      old_to_new->resize(static_cast<size_t>(g.size()));
      for (ir::ValueId i = 0; i < g.size(); ++i) (*old_to_new)[i] = i;
    }
    return g;
  }
  // The switches the rewrite reads besides the graph and the device (a requested split-K): a
  // flush replays the last one's plan only under the same (the plan is of the rewritten graph).
  virtual uint64_t rewrite_settings() const { return 0; }

  // ---- variants
  // The variant kp runs: forced, stored or the heuristic's; one the family admits for kp's
  // operands on the device. Families without variants return 0.
  virtual VariantChoice choose(const VariantContext&, const KernelPlan&) const { return {}; }
  // Tunes choose()'s key: `time(v)` runs the kernel lowered with variant v once and returns its
  // device time in ms (< 0 or a throw: failed or wrong). Records the entry; returns the winner.
  virtual Variant tune(const VariantContext& c, const KernelPlan& kp,
                       const std::function<double(Variant)>& time) const {
    (void)time;
    return kp.variant;
  }
  // How far (relative, plus as much absolute) a tuning candidate's output may lie from the
  // current variant's: the variants sum in other orders. Half-precision outputs round apart by
  // an ulp.
  virtual float tuning_tolerance(const ir::Graph& g, const KernelPlan& kp) const;
  // The variant as EMBER_DUMP=plan prints it.
  virtual std::string describe(Variant v) const;
  // What compiled code specialises on beyond the structure and the variant (a row kernel's
  // register steps for its row length): part of the compiled-kernel cache key.
  virtual uint64_t specialisation(const ir::Graph&, const KernelPlan&) const { return 0; }

  // ---- lowering
  // Emits kernel `kernel` of `plan` (its variant frozen) into e; e's workgroup size starts at
  // 256 threads.
  virtual KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel,
                               const Emitter::LayoutFn& layout, Emitter& e) const = 0;
};

// A family whose kernel starts at one anchor node (a matmul, conv, sort or scatter) and runs
// over that node's output.
class AnchoredFamily : public Family {
 public:
  KernelPlan start(const ir::Graph& g, ir::ValueId v) const override {
    KernelPlan kp;
    kp.shape = g.type(v).shape;
    kp.anchor = v;
    return kp;
  }
  Shape index_space(const ir::Graph& g, const KernelPlan& kp) const override {
    return g.type(kp.anchor).shape;
  }
};

}  // namespace ember::jit
