#include "frontend/raw_tensor.h"

#include "frontend/detail/stream.h"

namespace ember {

const TensorType& RawTensor::type() const { return value_->type; }
const Device& RawTensor::device() const { return value_->device; }
bool RawTensor::is_materialized() const { return value_->array.has_value(); }

TensorData RawTensor::to_data() const {
  const runtime::Array& a = detail::Stream::of(device()).materialize(*this);
  TensorData data(a.type.dtype, a.type.shape);
  if (data.num_elements() > 0) {
    detail::backend_for(device()).download(a, data.mutable_bytes().data());
  }
  return data;
}

std::optional<std::span<const std::byte>> RawTensor::host_bytes() const {
  const runtime::Array& a = detail::Stream::of(device()).materialize(*this);
  if (!a.is_contiguous()) return std::nullopt;
  const std::byte* p = detail::backend_for(device()).host_address(a);
  if (p == nullptr) return std::nullopt;
  const auto n = static_cast<size_t>(a.type.shape.numel()) * dtype_size(a.type.dtype);
  return std::span<const std::byte>(p, n);
}

}  // namespace ember
