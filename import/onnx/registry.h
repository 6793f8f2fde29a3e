#pragma once
// The op converters, in one table keyed by ONNX op type (default domain). Each entry lists the
// attributes it understands and may check a node's attribute values before anything runs, so an
// import reports every unsupported op and attribute at once.
#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "import/onnx/context.h"

namespace ember::onnx_import {

// Maps a node's inputs to its outputs (one value per declared output; unused optional outputs
// may be left undefined).
using Converter = std::function<std::vector<Value>(NodeContext&)>;
// Returns why a node cannot be imported ("" when it can).
using NodeCheck = std::function<std::string(const ::onnx::NodeProto&, int opset)>;

struct OpEntry {
  Converter convert;
  std::vector<std::string> attrs;  // the attributes the converter reads
  NodeCheck check = {};            // optional
  // Whether the op may be evaluated once at import when all its inputs are constants (false for
  // random ops).
  bool foldable = true;
};

class Registry {
 public:
  static const Registry& instance();
  void add(const std::string& op_type, OpEntry entry);
  // nullptr for an op type Ember does not import. Ops of other domains than the default one are
  // keyed "domain.Op".
  const OpEntry* find(const std::string& op_type) const;
  const OpEntry* find(const ::onnx::NodeProto& node) const;
  std::vector<std::string> op_types() const;

 private:
  std::map<std::string, OpEntry> ops_;
};

// Why a node cannot be imported ("" when it can): an unknown op or domain, an attribute the
// converter does not read, or its check's reason.
std::string unsupported_reason(const ::onnx::NodeProto& node, int opset);

}  // namespace ember::onnx_import
