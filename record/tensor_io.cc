#include "record/tensor_io.h"

namespace ember::record {

namespace {

template <int D>
RawTensor upload_rank(const TensorData& data, const Device& device) {
  if (is_float(data.dtype())) return Tensor<D, Float>::from_data(data, device).raw();
  if (data.dtype() == DType::Bool) return Tensor<D, Bool>::from_data(data, device).raw();
  return Tensor<D, Int>::from_data(data, device).raw();
}

}  // namespace

RawTensor upload(const TensorData& data, const Device& device) {
  switch (data.shape().rank()) {
    case 1:
      return upload_rank<1>(data, device);
    case 2:
      return upload_rank<2>(data, device);
    case 3:
      return upload_rank<3>(data, device);
    case 4:
      return upload_rank<4>(data, device);
    case 5:
      return upload_rank<5>(data, device);
    case 6:
      return upload_rank<6>(data, device);
    case 7:
      return upload_rank<7>(data, device);
    case 8:
      return upload_rank<8>(data, device);
    default:
      break;
  }
  throw Error("record: cannot make a tensor of rank " + std::to_string(data.shape().rank()) +
              " (1 to 8)");
}

}  // namespace ember::record
