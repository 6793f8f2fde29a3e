#pragma once
// What an op converter sees of one node: its inputs as values, its attributes, the opset and the
// device, and errors that name the node.
#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "frontend/device.h"
#include "import/onnx/value.h"

namespace ember::onnx_import {

// "node 'name' (Op, opset N)": how every message names a node.
std::string describe(const ::onnx::NodeProto& node, int opset);

class NodeContext {
 public:
  NodeContext(const ::onnx::NodeProto& node, int opset, const Device& device,
              std::vector<const Value*> inputs)
      : node_(node), opset_(opset), device_(device), inputs_(std::move(inputs)) {}

  const ::onnx::NodeProto& node() const { return node_; }
  int opset() const { return opset_; }
  const Device& device() const { return device_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return node_.output_size(); }
  // Whether optional input i is given (present and not the empty name).
  bool has_input(int i) const { return i < num_inputs() && inputs_[i] != nullptr; }
  bool has_output(int i) const { return i < num_outputs() && !node_.output(i).empty(); }
  const Value& input(int i) const;
  // Input i on the device (rank >= 1; see Value).
  const RawTensor& tensor(int i) const { return input(i).on(device_); }
  // Input i read as integers (axes, shapes, pads given as tensors).
  std::vector<int64_t> ints_input(int i) const;
  double scalar_input(int i) const;

  bool has_attr(const std::string& name) const { return attr(name) != nullptr; }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name,
                                 const std::vector<int64_t>& fallback = {}) const;
  std::vector<float> attr_floats(const std::string& name) const;
  const ::onnx::AttributeProto* attr(const std::string& name) const;

  // Runs a subgraph of this node (If, Loop) with its inputs bound in order, reading the enclosing
  // graph's values; its outputs in order.
  using SubgraphRunner =
      std::function<std::vector<Value>(const ::onnx::GraphProto&, const std::vector<Value>&)>;
  void set_subgraph_runner(SubgraphRunner f) { subgraph_ = std::move(f); }
  std::vector<Value> run_subgraph(const ::onnx::GraphProto& g,
                                  const std::vector<Value>& inputs) const {
    return subgraph_(g, inputs);
  }

  // Throws ember::Error naming the node.
  [[noreturn]] void fail(const std::string& message) const;
  // A dim normalised against `rank` (negative counts from the end); fails when out of range.
  int64_t axis(int64_t a, int rank) const;

 private:
  const ::onnx::NodeProto& node_;
  int opset_;
  Device device_;
  std::vector<const Value*> inputs_;
  SubgraphRunner subgraph_;
};

}  // namespace ember::onnx_import
