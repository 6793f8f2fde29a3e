#include "import/onnx/registry.h"

#include <algorithm>

#include "import/onnx/ops/groups.h"

namespace ember::onnx_import {

const Registry& Registry::instance() {
  static const Registry r = [] {
    Registry reg;
    register_elementwise(reg);
    register_activation(reg);
    register_reduce(reg);
    register_shape(reg);
    register_index(reg);
    register_linalg(reg);
    register_conv(reg);
    register_norm(reg);
    register_resample(reg);
    register_loss(reg);
    register_window(reg);
    register_random(reg);
    register_quantize(reg);
    register_rnn(reg);
    register_grid_sample(reg);
    register_control(reg);
    register_sequence(reg);
    register_data_dependent(reg);
    register_training(reg);
    register_spectral(reg);
    register_roi_align(reg);
    return reg;
  }();
  return r;
}

void Registry::add(const std::string& op_type, OpEntry entry) { ops_[op_type] = std::move(entry); }

const OpEntry* Registry::find(const std::string& op_type) const {
  auto it = ops_.find(op_type);
  return it == ops_.end() ? nullptr : &it->second;
}

const OpEntry* Registry::find(const ::onnx::NodeProto& node) const {
  bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  return find(default_domain ? node.op_type() : node.domain() + "." + node.op_type());
}

std::vector<std::string> Registry::op_types() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : ops_) out.push_back(k);
  return out;
}

std::string unsupported_reason(const ::onnx::NodeProto& node, int opset) {
  const OpEntry* e = Registry::instance().find(node);
  if (!e && !node.domain().empty() && node.domain() != "ai.onnx") {
    return "domain '" + node.domain() + "' is not supported";
  }
  if (!e) return "op type not supported";
  std::vector<std::string> bad;
  for (const auto& a : node.attribute()) {
    if (std::find(e->attrs.begin(), e->attrs.end(), a.name()) == e->attrs.end()) {
      bad.push_back(a.name());
    }
  }
  if (!bad.empty()) {
    std::string s = "attribute";
    s += bad.size() > 1 ? "s " : " ";
    for (size_t i = 0; i < bad.size(); ++i) s += (i ? ", '" : "'") + bad[i] + "'";
    return s + " not supported";
  }
  return e->check ? e->check(node, opset) : "";
}

}  // namespace ember::onnx_import
