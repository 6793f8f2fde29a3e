#pragma once
// Host-side tensor contents: a shape, a dtype and densely packed row-major bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/error.h"
#include "ir/shape.h"

namespace ember {

// The dtype a C++ element type stores as.
template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return DType::F32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::F64;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::I64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::U8;
  else if constexpr (std::is_same_v<T, bool>)
    return DType::Bool;
  else
    static_assert(sizeof(T) == 0, "unsupported element type");
}

// Tolerance for approximate comparisons: |a - b| <= atol + rtol * |b|.
struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-8;
  static Tolerance absolute(double atol) { return {0.0, atol}; }
  static Tolerance relative(double rtol) { return {rtol, 0.0}; }
  static Tolerance rel_abs(double rtol, double atol) { return {rtol, atol}; }
  static Tolerance default_for(DType t);  // looser for f16/bf16
};

class TensorData {
 public:
  TensorData() = default;
  // From values and a shape (throws if the sizes disagree).
  template <class T>
  TensorData(const std::vector<T>& values, Shape shape)
      : TensorData(dtype_of<T>(), std::move(shape)) {
    check_count(static_cast<int64_t>(values.size()));
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < values.size(); ++i) bytes_[i] = std::byte(values[i] ? 1 : 0);
    } else {
      if (!bytes_.empty()) std::memcpy(bytes_.data(), values.data(), bytes_.size());
    }
  }
  // A 1-D tensor of the values.
  template <class T>
  explicit TensorData(const std::vector<T>& values)
      : TensorData(values, Shape{static_cast<int64_t>(values.size())}) {}
  // Zero-filled contents of a shape and dtype.
  TensorData(DType dtype, Shape shape);
  // Raw bytes (must be exactly numel * dtype size).
  TensorData(DType dtype, Shape shape, std::vector<std::byte> bytes);

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int64_t num_elements() const { return shape_.numel(); }
  const std::vector<std::byte>& bytes() const { return bytes_; }
  std::vector<std::byte>& mutable_bytes() { return bytes_; }

  // The elements converted to T (cast rules of the Cast primitive).
  template <class T>
  std::vector<T> to_vec() const {
    std::vector<T> out(static_cast<size_t>(num_elements()));
    if constexpr (std::is_same_v<T, bool>) {
      auto bytes = convert(DType::Bool).bytes_;
      for (size_t i = 0; i < out.size(); ++i) out[i] = bytes[i] != std::byte(0);
    } else {
      convert_into(dtype_of<T>(), out.data());
    }
    return out;
  }
  // The elements in place; T must match the dtype exactly.
  template <class T>
  std::span<const T> as_slice() const {
    if (dtype_of<T>() != dtype_) throw_dtype_mismatch(dtype_of<T>());
    return {reinterpret_cast<const T*>(bytes_.data()), static_cast<size_t>(num_elements())};
  }
  // Element i (row-major) as a double.
  double value_at(int64_t i) const;
  TensorData convert(DType dtype) const;

  // Throws ember::Error listing the first mismatches when shapes differ or any element is not
  // within tolerance (NaN matches NaN; infinities must match exactly).
  void assert_approx_eq(const TensorData& other, Tolerance tol = {}) const;
  // Throws unless shapes and values are equal (and dtypes too when `strict`).
  void assert_eq(const TensorData& other, bool strict = true) const;
  bool operator==(const TensorData& o) const {
    return dtype_ == o.dtype_ && shape_ == o.shape_ && bytes_ == o.bytes_;
  }
  std::string to_string() const;

 private:
  void check_count(int64_t n) const;
  void convert_into(DType to, void* dst) const;
  [[noreturn]] void throw_dtype_mismatch(DType wanted) const;

  DType dtype_ = DType::F32;
  Shape shape_;
  std::vector<std::byte> bytes_;
};

}  // namespace ember
