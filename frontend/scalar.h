#pragma once
// Scalar arguments of tensor ops: any arithmetic value, kept exact for integers.
#include <concepts>
#include <cstdint>

#include "ir/ops.h"

namespace ember {

class Scalar {
 public:
  template <class T>
  requires std::integral<T> Scalar(T v)
      : value_(ir::Scalar::from_int(static_cast<int64_t>(v))) {}  // NOLINT
  template <class T>
  requires std::floating_point<T> Scalar(T v)
      : value_(ir::Scalar::from_double(static_cast<double>(v))) {}  // NOLINT
  const ir::Scalar& ir() const { return value_; }
  double as_double() const { return value_.as_double(); }

 private:
  ir::Scalar value_;
};

}  // namespace ember
