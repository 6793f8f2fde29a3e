#include "import/onnx/codegen/emitters.h"

namespace ember::onnx_import::codegen {

const std::map<std::string, EmitEntry>& emit_table() {
  static const std::map<std::string, EmitEntry> table = [] {
    std::map<std::string, EmitEntry> t;
    add_math_emitters(t);
    add_shape_emitters(t);
    add_index_emitters(t);
    add_host_emitters(t);  // last: adds host forms to entries the others made
    return t;
  }();
  return table;
}

}  // namespace ember::onnx_import::codegen
