#pragma once
// The frontend op library on rank-erased tensors. Tensor<D, K> forwards here; everything below
// lowers to the primitives of frontend/detail/primitives.h. Dims may be negative (counted from the
// end).
#include <optional>
#include <utility>
#include <vector>

#include "frontend/distribution.h"
#include "frontend/range.h"
#include "frontend/raw_tensor.h"
#include "frontend/scalar.h"
#include "ir/ops.h"

namespace ember::ops {

using TensorPair = std::pair<RawTensor, RawTensor>;

// ---- creation
RawTensor full(const Shape& shape, Scalar value, DType dtype, const Device& device);
RawTensor zeros(const Shape& shape, DType dtype, const Device& device);
RawTensor ones(const Shape& shape, DType dtype, const Device& device);
RawTensor eye(int64_t size, DType dtype, const Device& device);
RawTensor arange(int64_t start, int64_t end, int64_t step, DType dtype, const Device& device);
RawTensor random(const Shape& shape, const Distribution& dist, DType dtype, const Device& device);
RawTensor tril_mask(const Shape& shape, int64_t diagonal, const Device& device);
RawTensor triu_mask(const Shape& shape, int64_t diagonal, const Device& device);
RawTensor diag_mask(const Shape& shape, int64_t diagonal, const Device& device);
RawTensor cartesian_grid(const Shape& shape, DType dtype, const Device& device);
RawTensor to_device(const RawTensor& x, const Device& device);

// ---- shape and layout
RawTensor reshape(const RawTensor& x, const std::vector<int64_t>& dims);  // -1 infers, 0 keeps
RawTensor permute(const RawTensor& x, const std::vector<int64_t>& axes);
RawTensor movedim(const RawTensor& x, const std::vector<int64_t>& src,
                  const std::vector<int64_t>& dst);
RawTensor swap_dims(const RawTensor& x, int64_t a, int64_t b);
RawTensor transpose(const RawTensor& x);  // swaps the last two dims
RawTensor flip(const RawTensor& x, const std::vector<int64_t>& axes);
RawTensor expand(const RawTensor& x, const std::vector<int64_t>& dims);  // -1 keeps; may add dims
RawTensor flatten(const RawTensor& x, int64_t start, int64_t end);
RawTensor squeeze(const RawTensor& x, int64_t dim);
RawTensor squeeze_dims(const RawTensor& x, const std::vector<int64_t>& dims);  // {} = all 1s
RawTensor unsqueeze(const RawTensor& x, int rank);                             // adds leading dims
RawTensor unsqueeze_dim(const RawTensor& x, int64_t dim);
RawTensor unsqueeze_dims(const RawTensor& x, const std::vector<int64_t>& dims);
RawTensor narrow(const RawTensor& x, int64_t dim, int64_t start, int64_t length);
RawTensor slice(const RawTensor& x, const std::vector<Range>& ranges);
RawTensor slice_dim(const RawTensor& x, int64_t dim, const Range& range);
RawTensor slice_assign(const RawTensor& x, const std::vector<Range>& ranges,
                       const RawTensor& values);
RawTensor slice_fill(const RawTensor& x, const std::vector<Range>& ranges, Scalar value);
RawTensor cat(const std::vector<RawTensor>& xs, int64_t dim);
RawTensor stack(const std::vector<RawTensor>& xs, int64_t dim);
std::vector<RawTensor> chunk(const RawTensor& x, int64_t chunks, int64_t dim);
std::vector<RawTensor> split(const RawTensor& x, int64_t split_size, int64_t dim);
std::vector<RawTensor> split_with_sizes(const RawTensor& x, const std::vector<int64_t>& sizes,
                                        int64_t dim);
RawTensor repeat_dim(const RawTensor& x, int64_t dim, int64_t times);
RawTensor repeat(const RawTensor& x, const std::vector<int64_t>& sizes);
RawTensor roll(const RawTensor& x, const std::vector<int64_t>& shifts,
               const std::vector<int64_t>& dims);
// Pads (before, after) pairs given from the last dim backwards, as torch.nn.functional.pad.
// Negative amounts crop.
RawTensor pad(const RawTensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads,
              Scalar value);

// ---- elementwise
RawTensor unary(ir::UnaryFn fn, const RawTensor& x);
RawTensor binary(ir::BinaryFn fn, const RawTensor& a, const RawTensor& b);
// (Scalars by reference: a 24-byte struct copied by value stalled store forwarding per op.)
RawTensor binary_scalar(ir::BinaryFn fn, const RawTensor& x, const Scalar& s);
RawTensor scalar_binary(ir::BinaryFn fn, const Scalar& s, const RawTensor& x);  // s op x
RawTensor cast(const RawTensor& x, DType dtype);
RawTensor is_finite(const RawTensor& x);
RawTensor clamp(const RawTensor& x, std::optional<Scalar> min, std::optional<Scalar> max);
RawTensor mask_fill(const RawTensor& x, const RawTensor& mask, Scalar value);
RawTensor mask_where(const RawTensor& x, const RawTensor& mask, const RawTensor& values);
RawTensor is_close(const RawTensor& a, const RawTensor& b, double rtol, double atol);
bool all_close(const RawTensor& a, const RawTensor& b, double rtol, double atol);
RawTensor tril(const RawTensor& x, int64_t diagonal);
RawTensor triu(const RawTensor& x, int64_t diagonal);
RawTensor one_hot_fill(const RawTensor& x, int64_t num_classes, Scalar on, Scalar off, int64_t axis,
                       DType dtype);

// ---- reductions (the *_dim forms keep the dim; the full forms return shape [1])
RawTensor reduce_all(ir::ReduceFn fn, const RawTensor& x);
RawTensor reduce_dim(ir::ReduceFn fn, const RawTensor& x, int64_t dim);
RawTensor mean(const RawTensor& x);
RawTensor mean_dim(const RawTensor& x, int64_t dim);
RawTensor all(const RawTensor& x);
RawTensor all_dim(const RawTensor& x, int64_t dim);
RawTensor any(const RawTensor& x);
RawTensor any_dim(const RawTensor& x, int64_t dim);
TensorPair var_mean(const RawTensor& x, int64_t dim, int64_t correction);
RawTensor contains_nan(const RawTensor& x);

// ---- sorting and indexing
TensorPair sort_with_indices(const RawTensor& x, int64_t dim, bool descending);
TensorPair topk_with_indices(const RawTensor& x, int64_t k, int64_t dim);
RawTensor gather(const RawTensor& x, int64_t dim, const RawTensor& index);
RawTensor scatter(const RawTensor& x, int64_t dim, const RawTensor& index, const RawTensor& values);
RawTensor select(const RawTensor& x, int64_t dim, const RawTensor& index);
RawTensor select_assign(const RawTensor& x, int64_t dim, const RawTensor& index,
                        const RawTensor& values);
RawTensor matmul(const RawTensor& a, const RawTensor& b);
// Data-dependent shapes: these run pending work.
RawTensor argwhere(const RawTensor& x);
std::vector<RawTensor> nonzero(const RawTensor& x);

// ---- activations, grid, linalg
RawTensor gelu(const RawTensor& x);
RawTensor relu(const RawTensor& x);
RawTensor leaky_relu(const RawTensor& x, double slope);
RawTensor sigmoid(const RawTensor& x);
RawTensor log_sigmoid(const RawTensor& x);
RawTensor hard_sigmoid(const RawTensor& x, double alpha, double beta);
RawTensor silu(const RawTensor& x);
RawTensor mish(const RawTensor& x);
RawTensor softplus(const RawTensor& x, double beta);
RawTensor prelu(const RawTensor& x, const RawTensor& alpha);
RawTensor softmax(const RawTensor& x, int64_t dim);
RawTensor softmin(const RawTensor& x, int64_t dim);
RawTensor log_softmax(const RawTensor& x, int64_t dim);
RawTensor quiet_softmax(const RawTensor& x, int64_t dim);
std::vector<RawTensor> meshgrid(const std::vector<RawTensor>& xs, bool matrix_indexing);
RawTensor vector_norm(const RawTensor& x, double p, int64_t dim);

}  // namespace ember::ops
