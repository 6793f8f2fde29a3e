#pragma once
// The emitter groups, each adding its op types to the table (emit_table() in table.cc).
#include "import/onnx/codegen/emit.h"
#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import::codegen {

void add_math_emitters(std::map<std::string, EmitEntry>& table);
void add_shape_emitters(std::map<std::string, EmitEntry>& table);
void add_index_emitters(std::map<std::string, EmitEntry>& table);
void add_host_emitters(std::map<std::string, EmitEntry>& table);

}  // namespace ember::onnx_import::codegen
