#pragma once
// The CPU reference implementations of every primitive. Each takes materialized (possibly
// strided) inputs and returns a new array or a view sharing an input's buffer.
#include "ir/ops.h"
#include "runtime/backend.h"

namespace ember::runtime::cpu {

Array run_full(const TensorType& out, ir::Scalar value);
Array run_iota(const TensorType& out, int axis);
Array run_random(const TensorType& out, const ir::RandomAttrs& attrs);

Array run_unary(ir::UnaryFn fn, const Array& x, const TensorType& out);
Array run_binary(ir::BinaryFn fn, const Array& a, const Array& b, const TensorType& out);
Array run_where(const Array& cond, const Array& a, const Array& b, const TensorType& out);
Array run_cast(const Array& x, DType dtype);
Array make_contiguous(const Array& x);

Array run_reduce(ir::ReduceFn fn, int axis, const Array& x, const TensorType& out);

Array view_reshape(const Array& x, const Shape& shape);
Array view_permute(const Array& x, const std::vector<int>& perm);
Array view_expand(const Array& x, const Shape& shape);
Array view_slice(const Array& x, const ir::SliceAttrs& attrs, const Shape& shape);
Array view_flip(const Array& x, const std::vector<int>& axes);
Array run_pad(const Array& x, const ir::PadAttrs& attrs, const TensorType& out);
Array run_concat(std::span<const Array> xs, int axis, const TensorType& out);

Array run_matmul(const Array& a, const Array& b, const TensorType& out);
Array run_conv(const Array& x, const Array& w, const ir::ConvAttrs& attrs, const TensorType& out);
// Every mode: inputs (q, k, v), or (q, k, v, dout, lse, delta) for the gradients.
Array run_attention(std::span<const Array> in, const ir::AttentionAttrs& attrs,
                    const TensorType& out);
// Both modes: inputs (xp, w, h0, c0) or (p, w, c0, dp), maybe then the barrier words.
Array run_lstm(std::span<const Array> in, const ir::LstmAttrs& attrs, const TensorType& out);

Array run_gather(const Array& x, int axis, const Array& index, const TensorType& out);
Array run_scatter_add(const Array& x, int axis, const Array& index, const Array& values);
Array run_sort(const Array& x, const ir::SortAttrs& attrs, const TensorType& out);

// Copies elements between two strided layouts of `type` (pointers at element 0 of each view).
void copy_strided(const TensorType& type, const void* src, const int64_t* src_strides, void* dst,
                  const int64_t* dst_strides);
// Copies `src` into `dst`, a writable view of the same shape and dtype (any layouts).
void copy_into(const Array& src, const Array& dst);
// Copies `src` (any layout) into the dense row-major destination `dst` of the same shape/dtype.
void copy_to_dense(const Array& src, void* dst);

}  // namespace ember::runtime::cpu
