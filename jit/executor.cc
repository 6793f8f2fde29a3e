#include "jit/executor.h"

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "jit/dump.h"
#include "jit/stats.h"

namespace ember::jit {

std::string labelled_error(const ir::Node& n, const std::string& message) {
  if (n.label == nullptr || message.rfind(std::string(n.label) + ":", 0) == 0) return message;
  return absl::StrCat(n.label, ": ", message);
}

std::vector<Outcome> execute_compiled(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                      std::span<const runtime::Array> inputs,
                                      runtime::Backend& backend, ReplayMemo* memo);

std::vector<Outcome> execute(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                             std::span<const runtime::Array> inputs, runtime::Backend& backend,
                             ReplayMemo* memo) {
  counters().flushes.fetch_add(1, std::memory_order_relaxed);
  if (dump_enabled("ir")) {
    uint64_t h = ir::structural_hash(g, outputs);
    dump("ir", absl::StrCat("graph_", absl::Hex(h, absl::kZeroPad16), ".ir"),
         ir::print_graph(g, outputs));
  }
  if (backend.kind() != runtime::DeviceKind::Cpu) {
    try {
      return execute_compiled(g, outputs, inputs, backend, memo);
    } catch (const Error& e) {
      // A failure to plan, compile or launch fails this flush's outputs, not the process, and
      // leaves nothing to replay (it may have failed before the memo's state was taken).
      if (memo != nullptr) memo->forget();
      std::vector<Outcome> failed(outputs.size());
      for (auto& o : failed) o.error = e.what();
      return failed;
    }
  }
  if (memo != nullptr) memo->forget();  // the reference path plans nothing to reuse
  // Remaining uses of each value; outputs hold one extra use so they survive.
  std::vector<int> uses(g.size(), 0);
  for (const ir::Node& n : g.nodes()) {
    for (ir::ValueId in : n.inputs) ++uses[in];
  }
  for (ir::ValueId o : outputs) ++uses[o];

  std::vector<std::optional<runtime::Array>> values(g.size());
  std::vector<std::string> errors(g.size());
  std::vector<runtime::Array> args;
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    const ir::Node& n = g.node(id);
    args.clear();
    for (ir::ValueId in : n.inputs) {
      if (!errors[in].empty()) errors[id] = errors[in];
      if (errors[id].empty()) args.push_back(*values[in]);
    }
    if (errors[id].empty()) {
      try {
        if (n.op == ir::OpKind::Input) {
          values[id] = inputs[n.get<ir::InputAttrs>().slot];
        } else {
          values[id] = backend.run_primitive(n, args);
          counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
        }
      } catch (const Error& e) {
        errors[id] = labelled_error(n, e.what());
      }
    }
    for (ir::ValueId in : n.inputs) {
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
