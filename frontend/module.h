#pragma once
// Convolution, pooling and resampling (Burn's burn::tensor::module), NCHW layout, weights
// [out, in / groups, kernel...] as PyTorch's torch.nn.functional. Recorded lazily like every op:
// a bias, activation, residual add or batch-norm scale and shift after a convolution fuse into
// its kernel.
#include <array>
#include <optional>
#include <utility>

#include "frontend/module_ops.h"
#include "frontend/tensor.h"

namespace ember::module {

namespace detail {
template <size_t N>
std::array<int64_t, N> filled(int64_t v) {
  std::array<int64_t, N> a;
  a.fill(v);
  return a;
}
template <size_t N>
std::vector<int64_t> vec(const std::array<int64_t, N>& a) {
  return std::vector<int64_t>(a.begin(), a.end());
}
inline std::optional<RawTensor> raw_bias(const std::optional<Tensor<1>>& bias) {
  return bias ? std::optional<RawTensor>(bias->raw()) : std::nullopt;
}
}  // namespace detail

template <size_t N>
struct ConvOptions {
  std::array<int64_t, N> stride = detail::filled<N>(1);
  std::array<int64_t, N> padding = detail::filled<N>(0);
  std::array<int64_t, N> dilation = detail::filled<N>(1);
  int64_t groups = 1;
};

template <size_t N>
struct ConvTransposeOptions {
  std::array<int64_t, N> stride = detail::filled<N>(1);
  std::array<int64_t, N> padding = detail::filled<N>(0);
  std::array<int64_t, N> padding_out = detail::filled<N>(0);
  std::array<int64_t, N> dilation = detail::filled<N>(1);
  int64_t groups = 1;
};

// Pooling windows; stride defaults to the kernel size (as PyTorch) when left empty.
template <size_t N>
struct PoolOptions {
  std::optional<std::array<int64_t, N>> stride;
  std::array<int64_t, N> padding = detail::filled<N>(0);
  std::array<int64_t, N> dilation = detail::filled<N>(1);  // max pooling only
  bool ceil_mode = false;
  bool count_include_pad = true;  // average pooling only
};

struct UnfoldOptions {
  std::array<int64_t, 2> stride{1, 1}, padding{0, 0}, dilation{1, 1};
};

using ops::InterpolateMode;
struct InterpolateOptions {
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;  // bilinear and bicubic
};

namespace detail {
template <size_t N>
ops::ConvArgs conv_args(const ConvOptions<N>& o) {
  return {vec(o.stride), vec(o.padding), vec(o.dilation), o.groups, {}};
}
template <size_t N>
ops::ConvArgs conv_args(const ConvTransposeOptions<N>& o) {
  return {vec(o.stride), vec(o.padding), vec(o.dilation), o.groups, vec(o.padding_out)};
}
template <size_t N>
ops::PoolArgs pool_args(const std::array<int64_t, N>& kernel, const PoolOptions<N>& o) {
  return {vec(kernel),    vec(o.stride.value_or(kernel)),
          vec(o.padding), vec(o.dilation),
          o.ceil_mode,    o.count_include_pad};
}
}  // namespace detail

// ---- convolutions: x [N, C, *S], weight [O, C / groups, *K], bias [O]
template <int D, size_t N = D - 2>
Tensor<D> conv(const char* op, const Tensor<D>& x, const Tensor<D>& weight,
               const std::optional<Tensor<1>>& bias, const ConvOptions<N>& options) {
  return Tensor<D>(
      ops::conv(op, x.raw(), weight.raw(), detail::raw_bias(bias), detail::conv_args(options)), op);
}
inline Tensor<3> conv1d(const Tensor<3>& x, const Tensor<3>& weight,
                        const std::optional<Tensor<1>>& bias = std::nullopt,
                        const ConvOptions<1>& options = {}) {
  return conv("conv1d", x, weight, bias, options);
}
inline Tensor<4> conv2d(const Tensor<4>& x, const Tensor<4>& weight,
                        const std::optional<Tensor<1>>& bias = std::nullopt,
                        const ConvOptions<2>& options = {}) {
  return conv("conv2d", x, weight, bias, options);
}
inline Tensor<5> conv3d(const Tensor<5>& x, const Tensor<5>& weight,
                        const std::optional<Tensor<1>>& bias = std::nullopt,
                        const ConvOptions<3>& options = {}) {
  return conv("conv3d", x, weight, bias, options);
}

// ---- transposed convolutions: x [N, C, *S], weight [C, O / groups, *K], bias [O]
template <int D, size_t N = D - 2>
Tensor<D> conv_transpose(const char* op, const Tensor<D>& x, const Tensor<D>& weight,
                         const std::optional<Tensor<1>>& bias,
                         const ConvTransposeOptions<N>& options) {
  return Tensor<D>(ops::conv_transpose(op, x.raw(), weight.raw(), detail::raw_bias(bias),
                                       detail::conv_args(options)),
                   op);
}
inline Tensor<3> conv_transpose1d(const Tensor<3>& x, const Tensor<3>& weight,
                                  const std::optional<Tensor<1>>& bias = std::nullopt,
                                  const ConvTransposeOptions<1>& options = {}) {
  return conv_transpose("conv_transpose1d", x, weight, bias, options);
}
inline Tensor<4> conv_transpose2d(const Tensor<4>& x, const Tensor<4>& weight,
                                  const std::optional<Tensor<1>>& bias = std::nullopt,
                                  const ConvTransposeOptions<2>& options = {}) {
  return conv_transpose("conv_transpose2d", x, weight, bias, options);
}
inline Tensor<5> conv_transpose3d(const Tensor<5>& x, const Tensor<5>& weight,
                                  const std::optional<Tensor<1>>& bias = std::nullopt,
                                  const ConvTransposeOptions<3>& options = {}) {
  return conv_transpose("conv_transpose3d", x, weight, bias, options);
}

// ---- pooling
inline Tensor<3> max_pool1d(const Tensor<3>& x, std::array<int64_t, 1> kernel,
                            const PoolOptions<1>& options = {}) {
  return Tensor<3>(ops::max_pool("max_pool1d", x.raw(), detail::pool_args(kernel, options)));
}
inline Tensor<4> max_pool2d(const Tensor<4>& x, std::array<int64_t, 2> kernel,
                            const PoolOptions<2>& options = {}) {
  return Tensor<4>(ops::max_pool("max_pool2d", x.raw(), detail::pool_args(kernel, options)));
}
// The maxima and their flat indices in each input plane (h * W + w), as PyTorch's.
inline std::pair<Tensor<3>, Tensor<3, Int>> max_pool1d_with_indices(
    const Tensor<3>& x, std::array<int64_t, 1> kernel, const PoolOptions<1>& options = {}) {
  RawTensor idx;
  RawTensor y =
      ops::max_pool("max_pool1d_with_indices", x.raw(), detail::pool_args(kernel, options), &idx);
  return {Tensor<3>(y), Tensor<3, Int>(idx)};
}
inline std::pair<Tensor<4>, Tensor<4, Int>> max_pool2d_with_indices(
    const Tensor<4>& x, std::array<int64_t, 2> kernel, const PoolOptions<2>& options = {}) {
  RawTensor idx;
  RawTensor y =
      ops::max_pool("max_pool2d_with_indices", x.raw(), detail::pool_args(kernel, options), &idx);
  return {Tensor<4>(y), Tensor<4, Int>(idx)};
}
inline Tensor<3> avg_pool1d(const Tensor<3>& x, std::array<int64_t, 1> kernel,
                            const PoolOptions<1>& options = {}) {
  return Tensor<3>(ops::avg_pool("avg_pool1d", x.raw(), detail::pool_args(kernel, options)));
}
inline Tensor<4> avg_pool2d(const Tensor<4>& x, std::array<int64_t, 2> kernel,
                            const PoolOptions<2>& options = {}) {
  return Tensor<4>(ops::avg_pool("avg_pool2d", x.raw(), detail::pool_args(kernel, options)));
}
inline Tensor<3> adaptive_avg_pool1d(const Tensor<3>& x, int64_t out) {
  return Tensor<3>(ops::adaptive_avg_pool("adaptive_avg_pool1d", x.raw(), {out}));
}
inline Tensor<4> adaptive_avg_pool2d(const Tensor<4>& x, std::array<int64_t, 2> out) {
  return Tensor<4>(ops::adaptive_avg_pool("adaptive_avg_pool2d", x.raw(), detail::vec(out)));
}
inline Tensor<4> adaptive_max_pool2d(const Tensor<4>& x, std::array<int64_t, 2> out) {
  return Tensor<4>(ops::adaptive_max_pool("adaptive_max_pool2d", x.raw(), detail::vec(out)));
}

// ---- resampling
inline Tensor<3> interpolate1d(const Tensor<3>& x, int64_t out,
                               const InterpolateOptions& options = {}) {
  return Tensor<3>(
      ops::interpolate("interpolate1d", x.raw(), {out}, options.mode, options.align_corners));
}
inline Tensor<4> interpolate(const Tensor<4>& x, std::array<int64_t, 2> out,
                             const InterpolateOptions& options = {}) {
  return Tensor<4>(ops::interpolate("interpolate", x.raw(), detail::vec(out), options.mode,
                                    options.align_corners));
}
inline Tensor<3> unfold4d(const Tensor<4>& x, std::array<int64_t, 2> kernel,
                          const UnfoldOptions& options = {}) {
  return Tensor<3>(ops::unfold4d(x.raw(), detail::vec(kernel),
                                 {{},
                                  detail::vec(options.stride),
                                  detail::vec(options.padding),
                                  detail::vec(options.dilation)}));
}
inline Tensor<4> pixel_shuffle(const Tensor<4>& x, int64_t factor) {
  return Tensor<4>(ops::pixel_shuffle(x.raw(), factor));
}

// ---- scaled dot-product attention
// softmax(q k^T * scale + masks) v over [batch, heads, seq, head_dim] tensors, as PyTorch's
// scaled_dot_product_attention, recorded as ordinary ops (matmul, scale, mask, softmax, matmul):
// the reference every device runs and what a fused attention kernel must match.
//
// Boolean masks follow Burn's convention: true marks a score that is masked out (the opposite of
// SDPA's boolean attn_mask, which marks what takes part). A query whose keys are all masked out
// gets zero weights and a zero output (as PyTorch's math backend since 2.5), never NaN.
struct AttentionOptions {
  std::optional<double> scale = std::nullopt;  // default 1 / sqrt(head_dim)
  // Query i sees key j only when j <= i + seq_k - seq_q: aligned at the bottom right, so that
  // queries appended after cached keys (incremental decoding) see every earlier key. With
  // seq_q == seq_k this is PyTorch's is_causal.
  bool causal = false;
  // Added to the scores; broadcast to [batch, heads, seq_q, seq_k] (each dim 1 or full).
  std::optional<Tensor<4>> additive_mask = std::nullopt;
  // True: masked out; broadcast like additive_mask.
  std::optional<Tensor<4, Bool>> bool_mask = std::nullopt;
  // [batch, seq_k], true marks a padded key (PyTorch's key_padding_mask, Burn's mask_pad).
  std::optional<Tensor<2, Bool>> key_padding_mask = std::nullopt;
  // Probability of dropping each attention weight (kept ones scaled by 1 / (1 - dropout)); only
  // while `training`.
  double dropout = 0;
  bool training = true;
  // Softmax with an extra zero logit (Burn's quiet_softmax): a query may attend to nothing.
  bool quiet_softmax = false;
};

struct AttentionOutput {
  Tensor<4> context;  // [batch, heads, seq_q, head_dim_v]
  Tensor<4> weights;  // [batch, heads, seq_q, seq_k], after dropout
};

// q [batch, heads, seq_q, head_dim], k [batch, kv_heads, seq_k, head_dim], v [batch, kv_heads,
// seq_k, head_dim_v]. kv_heads must divide heads (grouped-query attention): query head i uses
// key/value head i / (heads / kv_heads). Returns [batch, heads, seq_q, head_dim_v].
Tensor<4> attention(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v,
                    const AttentionOptions& options = {});
// The same, also returning the attention weights (which a fused kernel never materialises).
AttentionOutput attention_with_weights(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v,
                                       const AttentionOptions& options = {});

// ---- recurrence
// The recurrence of an LSTM layer over a whole sequence, recorded as one op so that the graph
// does not grow with the sequence (a fused kernel runs it where the device has one). From the
// input's part of the gates `input_gates` [batch, seq, 4 hidden] (x W_ih plus both biases; gates
// i, f, g, o side by side, PyTorch's order), the recurrent weight `weight_hh` [hidden, 4 hidden]
// and the initial states h0, c0 [batch, hidden], all of one floating dtype, returns every step's
// states packed [batch, seq, 6 hidden]: the gates i, f, g, o after their nonlinearities, the
// cell state c, then the hidden state h, in time order. Steps run from the last position first
// when `reverse`. Differentiable once.
Tensor<3> lstm_recurrence(const Tensor<3>& input_gates, const Tensor<2>& weight_hh,
                          const Tensor<2>& h0, const Tensor<2>& c0, bool reverse = false);

}  // namespace ember::module
