#pragma once
// C++ code generation from an imported ONNX model (ember-onnx --emit-cpp): a module class whose
// fields are the model's parameters (loaded from an Ember record) and whose forward prints the
// frontend calls the run-time importer makes for each node that runs after folding.
#include <string>
#include <vector>

#include "import/onnx/model.h"

namespace ember::onnx_import::codegen {

struct CppOptions {
  std::string class_name;   // a C++ identifier; also the files' stem
  std::string source_name;  // the ONNX file, named in the generated comments
};

struct CppFiles {
  std::string header, source, cmake;
};

// The generated sources. Throws ember::Error listing every node that has no C++ form (node
// name and op type) and every graph input or output that cannot be a forward argument.
CppFiles generate_cpp(const Model& model, const CppOptions& options);

// Writes <class>.h, <class>.cc, CMakeLists.txt and the record <class>.ember to `out_dir`: into
// a temporary folder beside it, renamed to `out_dir` once complete, so a failure leaves nothing
// partial. `out_dir` must not exist, or be an empty folder.
void write_cpp(const Model& model, const CppOptions& options, const std::string& out_dir);

// Whether `name` can be a generated class name (a C++ identifier).
bool valid_class_name(const std::string& name);

// The op types that have a C++ form.
std::vector<std::string> cpp_op_types();

}  // namespace ember::onnx_import::codegen
