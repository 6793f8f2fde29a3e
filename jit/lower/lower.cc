#include "jit/lower/lower.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kernels/family.h"

namespace ember::jit {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr uint32_t kThreads = 256;  // a kernel's workgroup unless its family sets another

std::string kernel_name(const ir::Graph& g, const KernelPlan& kp) {
  std::string name = kp.family->name();
  int parts = 0;
  for (ValueId v : kp.outputs) {
    if (parts++ == 3) break;
    const ir::Node& n = g.node(v);
    absl::StrAppend(&name, "_", ir::op_name(n.op));
    if (n.op == OpKind::Unary)
      absl::StrAppend(&name, "_", ir::unary_name(n.get<ir::UnaryAttrs>().fn));
    if (n.op == OpKind::Binary)
      absl::StrAppend(&name, "_", ir::binary_name(n.get<ir::BinaryAttrs>().fn));
    if (n.op == OpKind::Reduce)
      absl::StrAppend(&name, "_", ir::reduce_name(n.get<ir::ReduceAttrs>().fn));
  }
  return name;
}

}  // namespace

LoweredKernel lower_kernel(const ir::Graph& g, const Plan& plan, int kernel,
                           const Emitter::LayoutFn& layout) {
  const KernelPlan& kp = plan.kernels[kernel];
  Emitter e(g, plan.stored, plan.producer, kernel, layout);
  e.desc().workgroup_size = kThreads;
  KernelGeometry geometry = kp.family->lower(g, plan, kernel, layout, e);
  LoweredKernel out;
  out.desc = std::move(e.desc());
  out.desc.name = kernel_name(g, kp);
  LaunchSpec& l = out.launch;
  for (const Stmt& st : out.desc.body) {
    if (st.op == SOp::MmaTile) {
      const bool simt = MmaShape::unpack(st.code).kind == MmaShape::F32Simt;
      out.desc.name += simt ? "_tile" : "_mma";
      l.mma = !simt;
      break;
    }
  }
  l.name = out.desc.name;
  l.workgroup_size = out.desc.workgroup_size;
  l.uses_errors = out.desc.uses_errors;
  l.bindings = e.bindings();
  l.writes = e.writes();
  l.params = std::move(e.params());
  l.tiled_views = std::move(geometry.tiled_views);
  l.error_sites = e.error_sites();
  l.scalar_patches = e.scalar_patches();
  l.work_items = geometry.work_items;
  l.per_row = geometry.per_row;
  l.fused_nodes = e.fused_nodes() + static_cast<int>(kp.reductions.size()) + (kp.anchor >= 0);
  l.in_place_candidates = std::move(geometry.in_place_candidates);
  l.elements = static_cast<uint64_t>(std::max<int64_t>(0, kp.shape.numel()));
  if (kp.family->runs_on_host()) l.host_anchor = kp.anchor;
  if (kp.family->runs_external()) l.external_anchor = kp.anchor;
  return out;
}

void patch_scalars(const ir::Graph& g, LaunchSpec& spec) {
  for (const ScalarPatch& p : spec.scalar_patches) {
    ScalarWords words = scalar_field_words(g.node(p.node), p);
    std::copy(words.begin(), words.end(), spec.params.begin() + p.slot);
  }
}

}  // namespace ember::jit
