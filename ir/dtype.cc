#include "ir/dtype.h"

#include "ir/error.h"

namespace ember {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::F64:
    case DType::I64:
      return 8;
    case DType::F32:
    case DType::I32:
      return 4;
    case DType::F16:
    case DType::BF16:
      return 2;
    case DType::U8:
    case DType::Bool:
      return 1;
  }
  return 0;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32:
      return "f32";
    case DType::F16:
      return "f16";
    case DType::BF16:
      return "bf16";
    case DType::F64:
      return "f64";
    case DType::I32:
      return "i32";
    case DType::I64:
      return "i64";
    case DType::U8:
      return "u8";
    case DType::Bool:
      return "bool";
  }
  return "?";
}

bool is_float(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64;
}

bool is_int(DType t) { return t == DType::I32 || t == DType::I64 || t == DType::U8; }

DType dtype_from_name(const std::string& name) {
  for (int i = 0; i < kDTypeCount; ++i) {
    auto t = static_cast<DType>(i);
    if (name == dtype_name(t)) return t;
  }
  throw Error("unknown dtype '" + name + "'");
}

}  // namespace ember
