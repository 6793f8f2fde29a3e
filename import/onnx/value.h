#pragma once
// A value flowing along an imported graph's edges: a tensor, or a sequence or optional of them.
// ONNX has rank-0 tensors and frontend tensors have rank >= 1, so a value carries its ONNX rank
// beside the tensor (a scalar is a [1] tensor). A value may also be known on the host: constants,
// and shapes computed from run-time dimensions; shape arithmetic on known values runs on the host
// instead of the model's device.
#include <memory>
#include <mutex>
#include <vector>

#include "frontend/raw_tensor.h"
#include "frontend/tensor_data.h"

namespace ember::onnx_import {

class Value {
 public:
  Value() = default;
  // A device tensor of ONNX rank `rank` (0: `t` has shape [1]).
  static Value tensor(RawTensor t, int rank);
  static Value tensor(RawTensor t) {
    int r = t.rank();
    return tensor(std::move(t), r);
  }
  // Contents known on the host, in their ONNX shape (rank 0 allowed).
  static Value known(TensorData data);
  // A sequence of tensors of element type `elem` (the type an empty one still has).
  static Value sequence(std::vector<Value> items, DType elem);
  // An optional: empty, or holding one value (a tensor or a sequence).
  static Value optional(std::vector<Value> item);

  enum class Kind { Tensor, Sequence, Optional };
  Kind kind() const { return kind_; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  // A sequence's tensors, or an optional's value (none when empty).
  const std::vector<Value>& items() const;

  bool defined() const { return t_.defined() || host_ != nullptr || !is_tensor(); }
  // Known on the host from the start (a constant, a shape): not a device tensor that was read.
  bool is_known() const { return known_; }
  int rank() const { return rank_; }
  DType dtype() const;
  // The ONNX shape.
  std::vector<int64_t> dims() const;
  int64_t numel() const;
  // The contents on the host, in the ONNX shape (a device tensor is read: pending work runs).
  const TensorData& data() const;
  // The tensor on `device` (rank >= 1), uploaded there on first use when known on the host.
  const RawTensor& on(const Device& device) const;
  // The device tensor if there is one (undefined for host-only values).
  const RawTensor& raw() const { return t_; }

 private:
  // A known value's upload, shared by its copies: a constant is uploaded once, not on every
  // forward (each forward starts from copies of the model's constants).
  struct Upload {
    std::mutex mutex;
    RawTensor tensor;
  };
  mutable RawTensor t_;
  mutable std::shared_ptr<const TensorData> host_;
  std::shared_ptr<Upload> upload_;
  int rank_ = 0;
  bool known_ = false;
  Kind kind_ = Kind::Tensor;
  std::shared_ptr<const std::vector<Value>> items_;
  DType elem_ = DType::F32;  // a sequence's element type
};

// Shape [1] contents of a rank-0 TensorData (for upload), or the data unchanged.
TensorData at_least_1d(const TensorData& d);
// The same bytes under another shape (numel must agree).
TensorData with_shape(const TensorData& d, const std::vector<int64_t>& dims);

}  // namespace ember::onnx_import
