#pragma once
// What an op's code emitter sees of one node while ember-onnx prints a model as C++: its inputs
// as symbols of the generated code, its attributes (read through NodeContext, as the importer's
// converters read them), and the forward body it appends statements to.
//
// A symbol is a device tensor (a RawTensor variable of the generated code) or a host value:
// shape arithmetic (Shape, Gather of a dim, Concat of dims ...) becomes C++ integer expressions
// evaluated when forward runs, so symbolic dims (batch, sequence) stay run-time values, as they
// do in the run-time importer's host values.
#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontend/tensor_data.h"
#include "import/onnx/context.h"

namespace ember::onnx_import::codegen {

struct Sym {
  bool host = false;
  std::string var;                 // device: the RawTensor variable
  int rank = 0;                    // the ONNX rank (a rank-0 device tensor has shape [1])
  DType dtype = DType::F32;        // host: the element type
  std::vector<std::string> elems;  // host: one C++ expression per element (rank 0 or 1)
};

// The statements of forward, with fresh variable names.
struct Body {
  std::vector<std::string> lines;
  int next = 0;
  std::string fresh(const std::string& prefix) { return prefix + std::to_string(next++); }
};

// Thrown by an emitter for a node it cannot print; the generator collects every such node.
struct Unsupported {
  std::string why;
};

class EmitContext {
 public:
  EmitContext(const ::onnx::NodeProto& node, int opset, std::vector<const Sym*> inputs, Body& body)
      : node_(node),
        opset_(opset),
        attrs_(node, opset, Device::cpu_reference(), {}),
        inputs_(std::move(inputs)),
        body_(body) {}

  const ::onnx::NodeProto& node() const { return node_; }
  int opset() const { return opset_; }
  // Attribute reads (attr_int, attr_ints, ...) as the converters make them.
  const NodeContext& attrs() const { return attrs_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  bool has_input(int i) const { return i < num_inputs() && inputs_[i] != nullptr; }
  bool has_output(int i) const { return i < node_.output_size() && !node_.output(i).empty(); }
  const Sym& in(int i) const;
  int rank(int i) const { return in(i).rank; }
  bool all_host() const;

  // Input i as a device tensor expression (a host value is uploaded first, in its dtype).
  std::string tensor(int i);
  // Input i as host element expressions; unsupported when it is a device tensor (a shape or an
  // index computed on the device).
  const std::vector<std::string>& host(int i) const;
  // Input i as integers known when generating (constant axes, perms, indices).
  std::vector<int64_t> const_ints(int i) const;

  void line(const std::string& statement) { body_.lines.push_back(statement); }
  std::string fresh(const std::string& prefix) { return body_.fresh(prefix); }
  // A new device tensor variable holding `expr`, of ONNX rank `rank`.
  Sym device(const std::string& expr, int rank);
  // A host value: compound element expressions are bound to named constants first (unless
  // `bind` is false: a tensor's dim read where it is used).
  Sym host_value(std::vector<std::string> elems, int rank, DType dtype, bool bind = true);
  [[noreturn]] void unsupported(const std::string& why) const { throw Unsupported{why}; }

 private:
  const ::onnx::NodeProto& node_;
  int opset_;
  NodeContext attrs_;
  std::vector<const Sym*> inputs_;
  Body& body_;
};

using OpEmitter = std::function<std::vector<Sym>(EmitContext&)>;

struct EmitEntry {
  OpEmitter device;  // the node on device tensors (nullptr: only on host values)
  // The node when every input is a host value (nullptr, or an empty result: the inputs are
  // uploaded and the device emitter runs instead).
  OpEmitter host;
};

// The emitters by ONNX op type (default domain).
const std::map<std::string, EmitEntry>& emit_table();

// C++ helpers of the emitters.
std::string cpp_dtype(DType d);                           // "ember::DType::F32"
std::string cpp_ints(const std::vector<int64_t>& v);      // "{1, 2, 3}"
std::string cpp_list(const std::vector<std::string>& v);  // "{a, b}"
std::string cpp_float(double v);                          // a double literal that round-trips
bool is_literal(const std::string& expr);

}  // namespace ember::onnx_import::codegen
