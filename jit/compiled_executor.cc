// Runs a flushed graph on a compiling backend (Vulkan): plan, lower, compile (cached), launch,
// then report kernel-side errors against the outputs that depend on them.
#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "jit/compile.h"
#include "jit/dump.h"
#include "jit/executor.h"
#include "jit/fusion_switch.h"
#include "jit/lower.h"
#include "jit/plan.h"
#include "jit/stats.h"

namespace ember::jit {
namespace {

std::string error_message(const ir::Graph& g, const ErrorSite& site, uint32_t value,
                          uint32_t limit) {
  const ir::Node& n = g.node(site.node);
  if (site.kind == ErrorKind::DivisionByZero) {
    return labelled_error(n, absl::StrCat(ir::binary_name(n.get<ir::BinaryAttrs>().fn),
                                          ": integer division by zero"));
  }
  const char* op = n.op == ir::OpKind::Gather ? "gather" : "scatter";
  ir::ValueId target = n.inputs[0];
  return labelled_error(
      n, absl::StrCat(op, ": index ", static_cast<int32_t>(value), " out of range for dim ",
                      site.axis, " of size ", limit, " (tensor ", g.type(target).to_string(), ")"));
}

uint32_t groups_for(const LoweredKernel& lk, uint32_t max_groups) {
  uint64_t wg = lk.desc.workgroup_size;
  uint64_t g = lk.per_row ? lk.work_items : (lk.work_items + wg - 1) / wg;
  return static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>(g, 1), max_groups));
}

}  // namespace

std::vector<Outcome> execute_compiled(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                      std::span<const runtime::Array> inputs,
                                      runtime::Backend& backend) {
  Plan plan = make_plan(g, outputs, fusion_enabled());
  if (dump_enabled("plan")) {
    dump("plan", absl::StrCat("plan_", absl::Hex(ir::structural_hash(g, outputs), absl::kZeroPad16), ".txt"),
         print_plan(g, plan));
  }
  std::vector<std::optional<runtime::Array>> arrays(g.size());
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    if (g.node(v).op == ir::OpKind::Input) arrays[v] = inputs[g.node(v).get<ir::InputAttrs>().slot];
  }
  auto layout = [&](ir::ValueId v) -> const runtime::Array& { return *arrays[v]; };
  struct Launched {
    LoweredKernel lk;
    runtime::Array errors;
  };
  std::vector<Launched> launched;
  for (int k = 0; k < static_cast<int>(plan.kernels.size()); ++k) {
    for (ir::ValueId o : plan.kernels[k].outputs) arrays[o] = backend.allocate(g.type(o));
    LoweredKernel lk = lower_kernel(g, plan, k, layout);
    auto kernel = get_kernel(lk.desc, backend);
    runtime::Launch l;
    for (ir::ValueId b : lk.bindings) l.buffers.push_back(*arrays[b]);
    l.writes = lk.writes;
    l.params = lk.params;
    runtime::Array errors;
    if (lk.desc.uses_errors) {
      uint32_t zeros[4] = {0, 0, 0, 0};
      errors = backend.upload({DType::I32, Shape{4}}, zeros);
      l.buffers.push_back(errors);
      l.writes.push_back(true);
    }
    l.groups[0] = groups_for(lk, backend.max_workgroups());
    if (lk.work_items > 0) {
      backend.launch(*kernel, l);
      counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
    }
    counters().ops_fused.fetch_add(std::max(0, lk.fused_nodes - 1), std::memory_order_relaxed);
    launched.push_back({std::move(lk), std::move(errors)});
  }
  backend.sync();

  // Kernel-side checks: a failing kernel fails its outputs and everything computed from them.
  std::vector<std::string> failed(g.size());
  for (size_t k = 0; k < launched.size(); ++k) {
    const Launched& L = launched[k];
    std::string err;
    if (L.lk.desc.uses_errors) {
      uint32_t words[4];
      backend.download(L.errors, words);
      if (words[0] != 0) err = error_message(g, L.lk.error_sites[words[0] - 1], words[1], words[2]);
    }
    for (size_t i = 0; i < L.lk.bindings.size() && err.empty(); ++i) {
      if (!L.lk.writes[i] && !failed[L.lk.bindings[i]].empty()) err = failed[L.lk.bindings[i]];
    }
    if (err.empty()) continue;
    for (ir::ValueId o : plan.kernels[k].outputs) failed[o] = err;
  }
  std::vector<Outcome> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    ir::ValueId o = outputs[i];
    if (!failed[o].empty()) {
      out[i].error = failed[o];
    } else {
      out[i].array = arrays[o];
    }
  }
  return out;
}

}  // namespace ember::jit
