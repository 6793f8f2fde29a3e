#include "import/onnx/graph_runner.h"

#include "import/onnx/context.h"
#include "import/onnx/registry.h"
#include "import/onnx/tensor_proto.h"
#include "ir/error.h"

namespace ember::onnx_import {

bool all_known(const ::onnx::NodeProto& node, const Env& env) {
  const OpEntry* e = Registry::instance().find(node);
  if (!e || !e->foldable) return false;
  for (const auto& name : node.input()) {
    if (name.empty()) continue;
    auto it = env.find(name);
    if (it == env.end() || !it->second.is_known()) return false;
  }
  return true;
}

void run_node(const ::onnx::NodeProto& node, int opset, Env& env, const Device& device, bool host) {
  std::vector<const Value*> inputs;
  for (const auto& name : node.input()) {
    if (name.empty()) {
      inputs.push_back(nullptr);
      continue;
    }
    auto it = env.find(name);
    if (it == env.end()) {
      throw Error("onnx: " + describe(node, opset) + ": input '" + name + "' is not computed");
    }
    inputs.push_back(&it->second);
  }
  NodeContext ctx(node, opset, device, std::move(inputs));
  ctx.set_subgraph_runner(
      [&env, opset, device](const ::onnx::GraphProto& g, const std::vector<Value>& in) {
        return run_subgraph(g, opset, env, in, device);
      });
  std::vector<Value> out;
  try {
    out = Registry::instance().find(node)->convert(ctx);
  } catch (const Error& e) {
    // A frontend op's error (a shape that does not fit, ...) gets the node it came from.
    std::string what = e.what();
    if (what.rfind("onnx: ", 0) == 0) throw;
    throw Error("onnx: " + describe(node, opset) + ": " + what);
  }
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty()) continue;
    if (i >= static_cast<int>(out.size()) || !out[i].defined()) {
      throw Error("onnx: " + describe(node, opset) + ": output " + std::to_string(i) +
                  " is not produced");
    }
    Value v = host ? Value::known(out[i].data()) : std::move(out[i]);
    env.insert_or_assign(node.output(i), std::move(v));
  }
}

void run_nodes(const std::vector<const ::onnx::NodeProto*>& nodes, int opset, Env& env,
               const Device& device) {
  for (const auto* n : nodes) {
    bool host = all_known(*n, env);
    run_node(*n, opset, env, host ? Device::cpu_reference() : device, host);
  }
}

std::vector<Value> run_subgraph(const ::onnx::GraphProto& g, int opset, const Env& outer,
                                const std::vector<Value>& inputs, const Device& device) {
  Env env = outer;
  for (const auto& t : g.initializer()) env.insert_or_assign(t.name(), Value::known(to_data(t)));
  if (static_cast<int>(inputs.size()) != g.input_size()) {
    throw Error("onnx: subgraph '" + g.name() + "' takes " + std::to_string(g.input_size()) +
                " inputs, got " + std::to_string(inputs.size()));
  }
  for (int i = 0; i < g.input_size(); ++i) env.insert_or_assign(g.input(i).name(), inputs[i]);
  std::vector<const ::onnx::NodeProto*> nodes;
  for (const auto& n : g.node()) nodes.push_back(&n);
  run_nodes(nodes, opset, env, device);
  std::vector<Value> out;
  for (const auto& o : g.output()) {
    auto it = env.find(o.name());
    if (it == env.end()) throw Error("onnx: subgraph output '" + o.name() + "' is not computed");
    out.push_back(it->second);
  }
  return out;
}

void add_reads(const ::onnx::NodeProto& node, std::set<std::string>& names) {
  names.insert(node.input().begin(), node.input().end());
  for (const auto& a : node.attribute()) {
    auto graph = [&](const ::onnx::GraphProto& g) {
      for (const auto& n : g.node()) add_reads(n, names);
    };
    if (a.has_g()) graph(a.g());
    for (const auto& g : a.graphs()) graph(g);
  }
}

}  // namespace ember::onnx_import
