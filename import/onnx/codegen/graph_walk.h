#pragma once
// Walks an imported model's graph (after folding) and prints forward's body: graph inputs,
// parameters and constants become symbols, then each node's emitter appends its statements.
#include <map>
#include <string>
#include <vector>

#include "import/onnx/codegen/emit.h"
#include "import/onnx/model.h"

namespace ember::onnx_import::codegen {

// A constant the generated module holds as a device tensor (too large for a host value).
struct ConstantMember {
  std::string var;   // the member's name
  std::string onnx;  // the value's ONNX name
  TensorData data;
};

struct Walk {
  Body body;
  std::map<std::string, Sym> syms;  // by ONNX value name
  std::vector<ConstantMember> constants;
  std::vector<std::string> problems;  // "node 'n' (Op): why", every one found
};

// input_vars[i] names the RawTensor of graph input i, param_vars[i] that of weights entry i.
Walk walk_graph(const Model& model, const std::vector<std::string>& input_vars,
                const std::vector<std::string>& param_vars);

}  // namespace ember::onnx_import::codegen
