#include "import/onnx/codegen/graph_walk.h"

#include <set>

#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import::codegen {
namespace {

// Small integer and float constants (axes, dims, scalars) are host values, so shape arithmetic
// on them folds or stays C++ arithmetic; anything else is a device tensor member.
constexpr int64_t kMaxHostElements = 16;
// Constants are written into the source as literals: a larger one is reported, not printed.
constexpr int64_t kMaxInlineElements = 1 << 16;

std::vector<std::string> literal_elems(const TensorData& d) {
  std::vector<std::string> out;
  if (is_float(d.dtype())) {
    for (double v : d.to_vec<double>()) out.push_back(cpp_float(v));
  } else {
    for (int64_t v : d.to_vec<int64_t>()) out.push_back(std::to_string(v));
  }
  return out;
}

void add_constant(Walk& w, const std::string& name, const Value& v) {
  if (!v.is_tensor()) {
    w.problems.push_back("constant '" + name + "' is a sequence or optional");
    return;
  }
  const TensorData& d = v.data();
  int rank = d.shape().rank();
  if (rank <= 1 && d.num_elements() <= kMaxHostElements && !is_bool(d.dtype())) {
    Sym s;
    s.host = true;
    s.rank = rank;
    s.dtype = d.dtype();
    s.elems = literal_elems(d);
    w.syms[name] = s;
  } else if (d.num_elements() <= kMaxInlineElements) {
    Sym s;
    s.var = "c" + std::to_string(w.constants.size());
    s.rank = rank;
    w.constants.push_back({s.var, name, d});
    w.syms[name] = s;
  } else {
    w.problems.push_back("constant '" + name + "' has " + std::to_string(d.num_elements()) +
                         " elements, more than the generated source holds");
  }
}

// Runs one node's emitter; its statements are kept only when it succeeds.
void emit_node(Walk& w, const ::onnx::NodeProto& n, int opset, const std::set<std::string>& failed,
               std::set<std::string>& failed_out) {
  std::vector<const Sym*> inputs;
  for (const auto& name : n.input()) {
    if (name.empty()) {
      inputs.push_back(nullptr);
      continue;
    }
    if (failed.count(name)) {  // reported where it failed
      for (const auto& o : n.output()) failed_out.insert(o);
      return;
    }
    auto it = w.syms.find(name);
    if (it == w.syms.end()) {
      w.problems.push_back(describe(n, opset) + ": input '" + name + "' is not computed");
      for (const auto& o : n.output()) failed_out.insert(o);
      return;
    }
    inputs.push_back(&it->second);
  }
  size_t mark = w.body.lines.size();
  std::string why;
  try {
    auto entry = emit_table().find(n.op_type());
    bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    if (!default_domain || entry == emit_table().end()) throw Unsupported{"no C++ form"};
    EmitContext c(n, opset, inputs, w.body);
    c.line("// " + n.name() + " (" + n.op_type() + ")");
    std::vector<Sym> out;
    if (entry->second.host && c.all_host()) out = entry->second.host(c);
    if (out.empty() && !entry->second.device) throw Unsupported{"no C++ form on device tensors"};
    if (out.empty()) out = entry->second.device(c);
    for (int i = 0; i < n.output_size(); ++i) {
      if (n.output(i).empty()) continue;
      if (i >= static_cast<int>(out.size())) throw Unsupported{"output " + std::to_string(i)};
      w.syms[n.output(i)] = out[i];
    }
    if (w.body.lines.size() == mark + 1) w.body.lines.pop_back();  // folded into expressions
    return;
  } catch (const Unsupported& u) {
    why = u.why;
  } catch (const Error& e) {
    why = e.what();
  }
  w.body.lines.resize(mark);
  w.problems.push_back(describe(n, opset) + ": " + why);
  for (const auto& o : n.output()) failed_out.insert(o);
}

}  // namespace

Walk walk_graph(const Model& model, const std::vector<std::string>& input_vars,
                const std::vector<std::string>& param_vars) {
  Walk w;
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    const IoInfo& io = model.inputs()[i];
    w.syms[io.name] = Sym{false, input_vars[i], static_cast<int>(io.dims.size()), DType::F32, {}};
  }
  const auto& entries = model.weights().entries;
  for (size_t i = 0; i < entries.size(); ++i) {
    w.syms[entries[i].name] = Sym{false, param_vars[i], entries[i].onnx_rank, DType::F32, {}};
  }
  for (const auto& [name, v] : model.constants()) add_constant(w, name, v);
  std::set<std::string> failed;
  for (const auto* n : model.nodes()) emit_node(w, *n, model.opset(), failed, failed);
  return w;
}

}  // namespace ember::onnx_import::codegen
