#pragma once
// An ONNX model imported into Ember's lazy graph: each node maps onto frontend ops, so an
// imported model is fused and differentiable like one written by hand, and its float
// initializers are nn Params (fine-tunable, saved by records). Graph inputs are bound at run
// time: symbolic dims (batch, sequence) take the sizes of the tensors given.
#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "import/onnx/reader.h"
#include "import/onnx/value.h"
#include "import/onnx/weights.h"

namespace ember::onnx_import {

struct ImportOptions {
  Device device = Device::default_device();
  ReadOptions read;
  // Float initializers become trainable Params (false: frozen ones).
  bool trainable = true;
  // Runs the model in this float dtype (bf16, f16): float initializers and constants are
  // converted at import, and inputs declared FLOAT are given in it. Nodes that make float
  // tensors of a fixed type (Cast to FLOAT, ConstantOfShape's default) still make f32 ones.
  std::optional<DType> float_dtype;
};

// A graph input or output as the file declares it.
struct IoInfo {
  std::string name;
  Value::Kind kind = Value::Kind::Tensor;  // a sequence's or optional's element is described
                                           // by the fields below
  int32_t onnx_type = 0;                   // ONNX element type (0 when not declared)
  std::vector<int64_t> dims;               // -1 for a symbolic or unknown dim
  std::vector<std::string> dim_names;      // the symbolic names ("" for fixed dims)
  bool has_shape = false;
  std::string to_string() const;  // "x: FLOAT[batch, 3, 224, 224]"
};

class Model {
 public:
  // Reads `path` (reader.h) and imports its graph. Throws ember::Error listing every
  // unsupported op, attribute and element type of the file at once.
  static Model load(const std::string& path, const ImportOptions& options = {});
  static Model from_proto(const ::onnx::ModelProto& proto, const std::string& name,
                          const ImportOptions& options = {});

  // Runs the graph on tensors in the order of inputs() (rank-0 inputs given as shape [1]); the
  // outputs in the order of outputs() (rank-0 outputs as shape [1]). Lazy: nothing runs until
  // an output is read.
  std::vector<RawTensor> forward(const std::vector<RawTensor>& inputs) const;
  // The same on host data (float inputs converted to ImportOptions::float_dtype when set), with
  // outputs in their exact ONNX shapes (rank 0 included).
  std::vector<TensorData> run(const std::vector<TensorData>& inputs) const;
  // The same on values: what sequence and optional inputs and outputs need.
  std::vector<Value> run_values(const std::vector<Value>& inputs) const { return evaluate(inputs); }

  const std::vector<IoInfo>& inputs() const { return inputs_; }
  const std::vector<IoInfo>& outputs() const { return outputs_; }
  const Weights& weights() const { return weights_; }
  // The same graph with other parameter values (an optimizer step, a loaded record).
  Model with_weights(Weights w) const;
  const Device& device() const { return device_; }
  int opset() const { return opset_; }
  // How many nodes of each op type run (after folding constants at import).
  std::map<std::string, int> op_counts() const;
  // How many nodes were folded into constants at import.
  int folded_nodes() const { return folded_; }
  int64_t num_params() const { return weights_.num_params(); }
  // What runs after folding, for code generation (codegen/): the nodes in topological order and
  // the constants they read (folded values and non-parameter initializers).
  const std::vector<const ::onnx::NodeProto*>& nodes() const { return nodes_; }
  const std::map<std::string, Value>& constants() const { return constants_; }

 private:
  using Env = std::map<std::string, Value>;
  std::vector<Value> bind_inputs(const std::vector<Value>& given) const;
  std::vector<Value> evaluate(const std::vector<Value>& inputs) const;
  void fold_constants();
  void check_supported(const std::string& name) const;

  std::shared_ptr<const ::onnx::GraphProto> graph_;
  std::vector<const ::onnx::NodeProto*> nodes_;  // what runs, in topological order
  std::vector<IoInfo> inputs_, outputs_;
  std::map<std::string, Value> constants_;
  Weights weights_;
  Device device_;
  std::optional<DType> float_dtype_;
  int opset_ = 0;
  int folded_ = 0;
};

}  // namespace ember::onnx_import
