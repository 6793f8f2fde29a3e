#include "import/onnx/weights.h"

#include <utility>

namespace ember::onnx_import {
namespace {

template <int D>
AnyParam param_of_rank(const TensorData& d, const Device& device, bool trainable) {
  return nn::Param<Tensor<D>>(Tensor<D>::from_data(d, device), trainable);
}

template <int... R>
AnyParam dispatch(int rank, const TensorData& d, const Device& device, bool trainable,
                  std::integer_sequence<int, R...>) {
  AnyParam out;
  ((rank == R + 1 ? (out = param_of_rank<R + 1>(d, device, trainable), true) : false) || ...);
  return out;
}

}  // namespace

AnyParam Weights::make_param(const TensorData& data, const Device& device, bool trainable) {
  TensorData d = data.shape().rank() == 0 ? TensorData(data.dtype(), Shape{1}, data.bytes()) : data;
  int rank = d.shape().rank();
  if (!is_float(d.dtype()) || rank > kMaxParamRank) {
    throw Error("onnx: a parameter must be a float tensor of rank <= 6, got " +
                std::string(dtype_name(d.dtype())) + d.shape().to_string());
  }
  return dispatch(rank, d, device, trainable, std::make_integer_sequence<int, kMaxParamRank>());
}

RawTensor Weights::value(const AnyParam& p) {
  return std::visit([](const auto& param) { return param.val().raw(); }, p);
}

}  // namespace ember::onnx_import
