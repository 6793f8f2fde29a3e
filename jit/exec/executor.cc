#include "jit/exec/executor.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "jit/compile/cpu_compile.h"
#include "jit/dump.h"
#include "jit/exec/plan_cache.h"
#include "jit/exec/reduce_in_slabs.h"
#include "jit/stats.h"

namespace ember::jit {

std::string labelled_error(const ir::Node& n, const std::string& message) {
  if (n.label == nullptr || message.rfind(std::string(n.label) + ":", 0) == 0) return message;
  return absl::StrCat(n.label, ": ", message);
}

namespace {

// Whether the CPU target compiles this flush's kernels. EMBER_CPU_COMPILE=auto (the default)
// compiles graphs of at least kMinCompiledNodes primitives or with a value of at least
// kMinCompiledElements elements, and runs smaller ones on the reference executor: a training
// step or a large tensor op is compiled at its first flush, while a small eager op (exploring,
// printing, a unit test) never waits for the compiler. The choice depends on the graph alone,
// so a program computes the same bits every time it runs (a resumed training run continues the
// same trajectory). `always` compiles every flush (the CPU target's tests), `never` none.
// Graphs of more than kMaxCompiledNodes primitives (a flush forced by the pending-op limit: an
// eager loop that never reads its results) run on the reference too: compiling them takes
// longer than running them.
constexpr int kMinCompiledNodes = 32;
constexpr int kMaxCompiledNodes = 16384;
constexpr int64_t kMinCompiledElements = int64_t{1} << 16;

bool compile_on_cpu(const ir::Graph& g, const std::vector<ir::ValueId>& outputs) {
  const char* env = std::getenv("EMBER_CPU_COMPILE");
  std::string_view mode = env != nullptr && *env != '\0' ? env : "auto";
  if (mode == "never") return false;
  bool compile = mode == "always" || g.size() >= kMinCompiledNodes;
  if (mode != "always" && g.size() > kMaxCompiledNodes) return false;
  for (size_t v = 0; !compile && v < g.nodes().size(); ++v) {
    compile = g.nodes()[v].type.shape.numel() >= kMinCompiledElements;
  }
  // Hashed only for the flushes that would compile (small eager flushes pay nothing).
  return compile && !structure_declined(ir::structural_hash(g, outputs));
}

}  // namespace

std::vector<Outcome> execute_compiled(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                      std::span<const runtime::Array> inputs,
                                      runtime::Backend& backend, ReplayMemo* memo);

std::vector<Outcome> execute(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                             std::span<const runtime::Array> inputs, runtime::Backend& backend,
                             const FlushHints& hints) {
  counters().flushes.fetch_add(1, std::memory_order_relaxed);
  ReplayMemo* memo = replay_slot(hints);
  if (dump_enabled("ir")) {
    uint64_t h = ir::structural_hash(g, outputs);
    dump("ir", absl::StrCat("graph_", absl::Hex(h, absl::kZeroPad16), ".ir"),
         ir::print_graph(g, outputs));
  }
  if (backend.compiles_kernels() &&
      (backend.kind() != runtime::DeviceKind::Cpu || compile_on_cpu(g, outputs))) {
    try {
      return execute_compiled(g, outputs, inputs, backend, memo);
    } catch (const CompileDeclined&) {
      if (memo != nullptr) memo->forget();
      decline_structure(ir::structural_hash(g, outputs));  // runs on the reference from now on
    } catch (const Error& e) {
      // A failure to plan, compile or launch fails this flush's outputs, not the process, and
      // leaves nothing to replay (it may have failed before the memo's state was taken).
      if (memo != nullptr) memo->forget();
      // The CPU target has the reference executor to fall back on (a kernel the system
      // compiler rejects is Ember's bug, not the user's): it warns once and runs the flush
      // there, unless its tests ask for compiled kernels (EMBER_CPU_COMPILE=always).
      const char* mode = std::getenv("EMBER_CPU_COMPILE");
      if (backend.kind() != runtime::DeviceKind::Cpu ||
          (mode != nullptr && std::string_view(mode) == "always")) {
        std::vector<Outcome> failed(outputs.size());
        for (auto& o : failed) o.error = e.what();
        return failed;
      }
      decline_structure(ir::structural_hash(g, outputs));  // not retried every flush
      static std::once_flag warned;
      std::call_once(warned, [&] {
        std::fprintf(stderr,
                     "ember: %s\nember: this and later such flushes run on the CPU "
                     "reference executor\n",
                     e.what());
      });
    }
  }
  if (memo != nullptr) memo->forget();  // the reference path plans nothing to reuse
  // Remaining uses of each value; outputs hold one extra use so they survive.
  std::vector<int> uses(g.size(), 0);
  for (const ir::Node& n : g.nodes()) {
    for (ir::ValueId in : n.inputs) ++uses[in];
  }
  for (ir::ValueId o : outputs) ++uses[o];
  // Reductions of large pointwise expressions run slab by slab; the expression's nodes wait.
  std::vector<SlabPlan> plans = plan_slabs(g, uses);
  std::vector<int> plan_of(g.size(), -1);
  std::vector<bool> deferred(g.size(), false);
  for (size_t i = 0; i < plans.size(); ++i) {
    plan_of[plans[i].reduce] = static_cast<int>(i);
    for (ir::ValueId id : plans[i].nodes) deferred[id] = true;
  }

  std::vector<std::optional<runtime::Array>> values(g.size());
  std::vector<std::string> errors(g.size());
  std::vector<runtime::Array> args;
  // The values a node (or a slab plan) reads: the plan's own nodes are computed inside it.
  auto inputs_of = [&](ir::ValueId id) -> std::span<const ir::ValueId> {
    if (plan_of[id] >= 0) return plans[plan_of[id]].leaves;
    return g.node(id).inputs;
  };
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    if (deferred[id]) continue;
    const ir::Node& n = g.node(id);
    std::span<const ir::ValueId> ins = inputs_of(id);
    args.clear();
    for (ir::ValueId in : ins) {
      if (!errors[in].empty()) errors[id] = errors[in];
    }
    if (errors[id].empty()) {
      for (ir::ValueId in : n.inputs) {
        if (!deferred[in]) args.push_back(*values[in]);
      }
      try {
        if (n.op == ir::OpKind::Input) {
          values[id] = inputs[n.get<ir::InputAttrs>().slot];
        } else if (plan_of[id] >= 0) {
          values[id] = run_slabs(
              g, plans[plan_of[id]],
              [&](ir::ValueId v) -> const runtime::Array& { return *values[v]; }, backend);
          counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
        } else {
          values[id] = backend.run_primitive(n, args);
          counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
        }
      } catch (const Error& e) {
        errors[id] = labelled_error(n, e.what());
      }
    }
    for (ir::ValueId in : ins) {
      if (--uses[in] == 0) values[in].reset();
    }
  }
  std::vector<Outcome> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    out[i].array = values[outputs[i]];
    out[i].error = errors[outputs[i]];
  }
  return out;
}

}  // namespace ember::jit
