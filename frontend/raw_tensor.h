#pragma once
// A rank-erased tensor handle: what Tensor<D, K> wraps. Cheap to copy (a shared reference to an
// immutable lazy value).
#include <memory>
#include <optional>
#include <span>

#include "frontend/device.h"
#include "frontend/tensor_data.h"
#include "ir/shape.h"

namespace ember {
namespace detail {
struct LazyValue;
struct TapeNode;
}  // namespace detail

class RawTensor {
 public:
  RawTensor() = default;
  explicit RawTensor(std::shared_ptr<detail::LazyValue> v,
                     std::shared_ptr<detail::TapeNode> tape = nullptr)
      : value_(std::move(v)), tape_(std::move(tape)) {}

  bool defined() const { return value_ != nullptr; }
  const TensorType& type() const;
  DType dtype() const { return type().dtype; }
  const Shape& shape() const { return type().shape; }
  int rank() const { return shape().rank(); }
  const Device& device() const;
  // Whether the value has been computed (no pending work behind it).
  bool is_materialized() const;
  // Runs pending work if needed and copies the contents to the host.
  TensorData to_data() const;
  // Runs pending work if needed; the elements in place (row-major, densely packed) when they
  // already lie in host memory that way (a contiguous tensor on the CPU device), valid while
  // this tensor or a copy of it lives; nullopt elsewhere (use to_data()). A checkpoint writes
  // them to its file without a copy.
  std::optional<std::span<const std::byte>> host_bytes() const;
  const std::shared_ptr<detail::LazyValue>& value() const { return value_; }
  // The autodiff record of how this value was computed from tracked tensors, or null.
  const std::shared_ptr<detail::TapeNode>& tape() const { return tape_; }
  // The same value, cut from the autodiff record.
  RawTensor detached() const { return RawTensor(value_); }

 private:
  std::shared_ptr<detail::LazyValue> value_;
  std::shared_ptr<detail::TapeNode> tape_;
};

}  // namespace ember
