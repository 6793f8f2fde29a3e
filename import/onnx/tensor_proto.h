#pragma once
// ONNX TensorProto <-> host tensor contents, and ONNX element types <-> Ember dtypes.
#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

#include "frontend/tensor_data.h"

namespace ember::onnx_import {

// The Ember dtype of an ONNX element type, nullopt for those Ember lacks (int8, uint16, string..).
std::optional<DType> to_dtype(int32_t onnx_type);
int32_t to_onnx_type(DType dtype);
// "FLOAT", "INT8", ... for messages.
std::string onnx_type_name(int32_t onnx_type);

// The contents of a tensor proto in its ONNX shape (rank 0 allowed); throws ember::Error naming
// the tensor for an element type Ember lacks or inconsistent data. External data must already
// be loaded (reader.h).
TensorData to_data(const ::onnx::TensorProto& t);

}  // namespace ember::onnx_import
