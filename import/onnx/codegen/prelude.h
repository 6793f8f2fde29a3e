#pragma once
// The helper functions a generated model source starts with (prelude.cc).

namespace ember::onnx_import::codegen {

const char* prelude();

}  // namespace ember::onnx_import::codegen
