#pragma once
// Reading an ONNX file into a checked, shape-inferred ModelProto at the opset the importer is
// written for. Everything here is libonnx (Debian's libonnx-dev): no Python.
#include <onnx/onnx_pb.h>

#include <string>

namespace ember::onnx_import {

// The default-domain opset the converters are written for; older models are converted to it
// with ONNX's own version converter.
inline constexpr int kTargetOpset = 17;

struct ReadOptions {
  bool check = true;          // onnx::checker on the file
  bool infer_shapes = true;   // onnx::shape_inference (fills value_info)
  bool convert_opset = true;  // older default-domain opsets converted to kTargetOpset
  bool load_external = true;  // external tensor data read into the initializers
};

// Reads, checks, converts and shape-infers the model at `path`; external data files are found
// relative to the model's directory. Throws ember::Error naming the file on any failure.
::onnx::ModelProto read_model(const std::string& path, const ReadOptions& options = {});

// The same from bytes in memory (external data then resolves against `base_dir`).
::onnx::ModelProto read_model_bytes(const std::string& bytes, const std::string& base_dir,
                                    const std::string& name, const ReadOptions& options = {});

// The default-domain ("" or "ai.onnx") opset the model imports, 0 when none.
int default_opset(const ::onnx::ModelProto& model);

// Replaces every external-data tensor of the graph (initializers, Constant attributes) by its
// contents read from `base_dir`; throws ember::Error naming the tensor and file.
void load_external_data(::onnx::ModelProto& model, const std::string& base_dir);

}  // namespace ember::onnx_import
