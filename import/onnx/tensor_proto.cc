#include "import/onnx/tensor_proto.h"

#include <cstring>

#include "ir/error.h"

namespace ember::onnx_import {
namespace {

using TP = ::onnx::TensorProto;

// Typed-field contents: protobuf repeated fields of the storage type ONNX uses for `dtype`.
template <class Field>
std::vector<std::byte> pack(const Field& field, DType dtype, int64_t n, const std::string& name) {
  if (static_cast<int64_t>(field.size()) != n) {
    throw Error("onnx: tensor '" + name + "' has " + std::to_string(field.size()) + " values for " +
                std::to_string(n) + " elements");
  }
  std::vector<std::byte> out(static_cast<size_t>(n) * dtype_size(dtype));
  for (int64_t i = 0; i < n; ++i) {
    auto v = field.Get(static_cast<int>(i));
    std::byte* dst = out.data() + i * dtype_size(dtype);
    switch (dtype) {
      case DType::F32: {
        float f = static_cast<float>(v);
        std::memcpy(dst, &f, 4);
        break;
      }
      case DType::F64: {
        double d = static_cast<double>(v);
        std::memcpy(dst, &d, 8);
        break;
      }
      case DType::I32: {
        int32_t x = static_cast<int32_t>(v);
        std::memcpy(dst, &x, 4);
        break;
      }
      case DType::I64: {
        int64_t x = static_cast<int64_t>(v);
        std::memcpy(dst, &x, 8);
        break;
      }
      case DType::F16:
      case DType::BF16: {  // the 16 bits stored in an int32 field
        uint16_t x = static_cast<uint16_t>(static_cast<int64_t>(v));
        std::memcpy(dst, &x, 2);
        break;
      }
      case DType::U8:
      case DType::Bool:
        *dst = std::byte(static_cast<uint8_t>(static_cast<int64_t>(v)));
        break;
    }
  }
  return out;
}

}  // namespace

std::optional<DType> to_dtype(int32_t t) {
  switch (t) {
    case TP::FLOAT:
      return DType::F32;
    case TP::DOUBLE:
      return DType::F64;
    case TP::FLOAT16:
      return DType::F16;
    case TP::BFLOAT16:
      return DType::BF16;
    case TP::INT32:
      return DType::I32;
    case TP::INT64:
      return DType::I64;
    case TP::UINT8:
      return DType::U8;
    case TP::BOOL:
      return DType::Bool;
    default:
      return std::nullopt;
  }
}

int32_t to_onnx_type(DType d) {
  switch (d) {
    case DType::F32:
      return TP::FLOAT;
    case DType::F64:
      return TP::DOUBLE;
    case DType::F16:
      return TP::FLOAT16;
    case DType::BF16:
      return TP::BFLOAT16;
    case DType::I32:
      return TP::INT32;
    case DType::I64:
      return TP::INT64;
    case DType::U8:
      return TP::UINT8;
    case DType::Bool:
      return TP::BOOL;
  }
  return TP::UNDEFINED;
}

std::string onnx_type_name(int32_t t) {
  if (TP::DataType_IsValid(t)) return TP::DataType_Name(static_cast<TP::DataType>(t));
  return "type " + std::to_string(t);
}

TensorData to_data(const TP& t) {
  std::optional<DType> dtype = to_dtype(t.data_type());
  if (!dtype) {
    throw Error("onnx: tensor '" + t.name() + "' has element type " +
                onnx_type_name(t.data_type()) + ", which Ember lacks");
  }
  if (t.data_location() == TP::EXTERNAL) {
    throw Error("onnx: tensor '" + t.name() + "': external data not loaded");
  }
  Shape shape(std::vector<int64_t>(t.dims().begin(), t.dims().end()));
  int64_t n = shape.numel();
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (static_cast<int64_t>(raw.size()) != n * static_cast<int64_t>(dtype_size(*dtype))) {
      throw Error("onnx: tensor '" + t.name() + "' has " + std::to_string(raw.size()) +
                  " bytes for " + std::to_string(n) + " " + dtype_name(*dtype) + " elements");
    }
    std::vector<std::byte> bytes(raw.size());
    if (!raw.empty()) std::memcpy(bytes.data(), raw.data(), raw.size());
    return TensorData(*dtype, shape, std::move(bytes));
  }
  switch (*dtype) {
    case DType::F32:
      return TensorData(*dtype, shape, pack(t.float_data(), *dtype, n, t.name()));
    case DType::F64:
      return TensorData(*dtype, shape, pack(t.double_data(), *dtype, n, t.name()));
    case DType::I64:
      return TensorData(*dtype, shape, pack(t.int64_data(), *dtype, n, t.name()));
    default:
      return TensorData(*dtype, shape, pack(t.int32_data(), *dtype, n, t.name()));
  }
}

}  // namespace ember::onnx_import
