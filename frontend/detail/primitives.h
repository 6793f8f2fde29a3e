#pragma once
// One recording function per IR primitive. Every frontend op, composite or not, is written in
// terms of these, so the fuser and autodiff see only primitives.
#include <vector>

#include "frontend/raw_tensor.h"
#include "ir/ops.h"

namespace ember::prim {

RawTensor full(const Shape& shape, DType dtype, ir::Scalar value, const Device& device);
RawTensor iota(const Shape& shape, DType dtype, int axis, const Device& device);
RawTensor random(const Shape& shape, DType dtype, ir::RandomDist dist, double a, double b,
                 const Device& device);
RawTensor from_data(const TensorData& data, const Device& device);
// `data` holds numel * dtype size bytes (checked by the caller).
RawTensor from_bytes(const void* data, DType dtype, const Shape& shape, const Device& device);

RawTensor unary(ir::UnaryFn fn, const RawTensor& x);
RawTensor binary(ir::BinaryFn fn, const RawTensor& a, const RawTensor& b);
// x op scalar (or scalar op x when `scalar_first`), the scalar in x's dtype.
RawTensor binary_scalar(ir::BinaryFn fn, const RawTensor& x, const ir::Scalar& s,
                        bool scalar_first = false);
RawTensor where(const RawTensor& cond, const RawTensor& a, const RawTensor& b);
RawTensor cast(const RawTensor& x, DType dtype);
RawTensor reduce(ir::ReduceFn fn, const RawTensor& x, int axis, DType index_dtype = DType::I32);
RawTensor reshape(const RawTensor& x, const Shape& shape);
RawTensor permute(const RawTensor& x, const std::vector<int>& perm);
RawTensor expand(const RawTensor& x, const Shape& shape);
RawTensor slice(const RawTensor& x, const std::vector<int64_t>& starts,
                const std::vector<int64_t>& counts, const std::vector<int64_t>& steps);
RawTensor flip(const RawTensor& x, const std::vector<int>& axes);
RawTensor pad(const RawTensor& x, const std::vector<int64_t>& before,
              const std::vector<int64_t>& after, ir::Scalar value);
RawTensor concat(const std::vector<RawTensor>& xs, int axis);
RawTensor matmul(const RawTensor& a, const RawTensor& b);
RawTensor gather(const RawTensor& x, int axis, const RawTensor& index);
RawTensor scatter_add(const RawTensor& x, int axis, const RawTensor& index,
                      const RawTensor& values);
RawTensor sort(const RawTensor& x, int axis, bool descending, bool indices,
               DType index_dtype = DType::I32);
RawTensor conv(const RawTensor& x, const RawTensor& w, const ir::ConvAttrs& attrs);
RawTensor lstm(const RawTensor& xp, const RawTensor& w, const RawTensor& h0, const RawTensor& c0,
               const ir::LstmAttrs& attrs);
RawTensor collective(const RawTensor& x, const ir::CollectiveAttrs& attrs);
RawTensor attention(const RawTensor& q, const RawTensor& k, const RawTensor& v,
                    const ir::AttentionAttrs& attrs);

// A tensor of x's rank and device with every dim 1, holding `s` in `dtype`: how scalars enter
// binary ops (broadcast, never materialized at full size).
RawTensor scalar_like(const RawTensor& x, ir::Scalar s, DType dtype);

}  // namespace ember::prim
