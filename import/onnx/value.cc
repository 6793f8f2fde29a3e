#include "import/onnx/value.h"

#include "frontend/tensor.h"

namespace ember::onnx_import {

Value Value::tensor(RawTensor t, int rank) {
  if (rank == 0 && t.shape().numel() != 1) {
    throw Error("onnx: a scalar value needs one element, got " + t.shape().to_string());
  }
  Value v;
  v.t_ = std::move(t);
  v.rank_ = rank;
  return v;
}

Value Value::known(TensorData data) {
  Value v;
  v.rank_ = data.shape().rank();
  v.host_ = std::make_shared<const TensorData>(std::move(data));
  v.known_ = true;
  v.upload_ = std::make_shared<Upload>();
  return v;
}

Value Value::sequence(std::vector<Value> items, DType elem) {
  Value v;
  v.kind_ = Kind::Sequence;
  v.items_ = std::make_shared<const std::vector<Value>>(std::move(items));
  v.elem_ = elem;
  return v;
}

Value Value::optional(std::vector<Value> item) {
  if (item.size() > 1) throw Error("onnx: an optional holds at most one value");
  Value v;
  v.kind_ = Kind::Optional;
  v.items_ = std::make_shared<const std::vector<Value>>(std::move(item));
  return v;
}

const std::vector<Value>& Value::items() const {
  if (is_tensor()) throw Error("onnx: a tensor where a sequence or optional is expected");
  return *items_;
}

// A container where a tensor is expected.
static void require_tensor(Value::Kind k) {
  if (k != Value::Kind::Tensor) {
    throw Error(std::string("onnx: a ") + (k == Value::Kind::Sequence ? "sequence" : "optional") +
                " where a tensor is expected");
  }
}

DType Value::dtype() const {
  if (kind_ == Kind::Sequence) return elem_;
  if (kind_ == Kind::Optional) return items_->empty() ? elem_ : (*items_)[0].dtype();
  return host_ ? host_->dtype() : t_.dtype();
}

std::vector<int64_t> Value::dims() const {
  require_tensor(kind_);
  if (host_) return host_->shape().vector();
  if (rank_ == 0) return {};
  return t_.shape().vector();
}

int64_t Value::numel() const { return Shape(dims()).numel(); }

const TensorData& Value::data() const {
  require_tensor(kind_);
  if (!host_) host_ = std::make_shared<const TensorData>(with_shape(t_.to_data(), dims()));
  return *host_;
}

const RawTensor& Value::on(const Device& device) const {
  require_tensor(kind_);
  if (t_.defined() && t_.device() == device) return t_;
  if (upload_) {
    std::lock_guard<std::mutex> lock(upload_->mutex);
    if (!upload_->tensor.defined() || upload_->tensor.device() != device) {
      upload_->tensor = detail::raw_from_data(at_least_1d(*host_), device);
    }
    t_ = upload_->tensor;
  } else {
    t_ = ops::to_device(t_, device);
  }
  return t_;
}

TensorData at_least_1d(const TensorData& d) {
  if (d.shape().rank() > 0) return d;
  return TensorData(d.dtype(), Shape{1}, d.bytes());
}

TensorData with_shape(const TensorData& d, const std::vector<int64_t>& dims) {
  if (d.shape().vector() == dims) return d;
  return TensorData(d.dtype(), Shape(dims), d.bytes());
}

}  // namespace ember::onnx_import
