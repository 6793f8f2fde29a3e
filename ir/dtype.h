#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ember {

// Element types. Float kinds default to F32, Int to I32, Bool to Bool (one byte per element).
enum class DType : uint8_t { F32, F16, BF16, F64, I32, I64, U8, Bool };

inline constexpr int kDTypeCount = 8;

size_t dtype_size(DType t);
const char* dtype_name(DType t);
bool is_float(DType t);
bool is_int(DType t);  // I32, I64, U8
inline bool is_bool(DType t) { return t == DType::Bool; }
// Parses "f32", "bf16", ...; throws ember::Error on an unknown name.
DType dtype_from_name(const std::string& name);

}  // namespace ember
