#include "import/onnx/context.h"

#include "ir/error.h"

namespace ember::onnx_import {

std::string describe(const ::onnx::NodeProto& node, int opset) {
  std::string name = node.name().empty()
                         ? "<unnamed, output '" + (node.output_size() ? node.output(0) : "") + "'>"
                         : "'" + node.name() + "'";
  std::string domain = node.domain().empty() ? "" : node.domain() + ".";
  return "node " + name + " (" + domain + node.op_type() + ", opset " + std::to_string(opset) + ")";
}

const Value& NodeContext::input(int i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
  return *inputs_[i];
}

std::vector<int64_t> NodeContext::ints_input(int i) const {
  return input(i).data().to_vec<int64_t>();
}

double NodeContext::scalar_input(int i) const {
  const TensorData& d = input(i).data();
  if (d.num_elements() != 1) fail("input " + std::to_string(i) + " must hold one value");
  return d.value_at(0);
}

const ::onnx::AttributeProto* NodeContext::attr(const std::string& name) const {
  for (const auto& a : node_.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t NodeContext::attr_int(const std::string& name, int64_t fallback) const {
  const auto* a = attr(name);
  return a ? a->i() : fallback;
}

float NodeContext::attr_float(const std::string& name, float fallback) const {
  const auto* a = attr(name);
  return a ? a->f() : fallback;
}

std::string NodeContext::attr_string(const std::string& name, const std::string& fallback) const {
  const auto* a = attr(name);
  return a ? a->s() : fallback;
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name,
                                            const std::vector<int64_t>& fallback) const {
  const auto* a = attr(name);
  if (!a) return fallback;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> NodeContext::attr_floats(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return {};
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

void NodeContext::fail(const std::string& message) const {
  throw Error("onnx: " + describe(node_, opset_) + ": " + message);
}

int64_t NodeContext::axis(int64_t a, int rank) const {
  if (a < -rank || a >= rank) {
    fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
  }
  return a < 0 ? a + rank : a;
}

}  // namespace ember::onnx_import
