#include "nn/attention.h"

#include <algorithm>
#include <array>

#include "nn/checks.h"

namespace ember::nn {

MhaInput MhaInput::with_mask_pad(const Tensor<2, Bool>& m) const {
  MhaInput c = *this;
  c.mask_pad = m;
  return c;
}
MhaInput MhaInput::with_mask_attn(const Tensor<3, Bool>& m) const {
  MhaInput c = *this;
  c.mask_attn = m;
  return c;
}
MhaInput MhaInput::with_causal(bool on) const {
  MhaInput c = *this;
  c.causal = on;
  return c;
}
MhaInput MhaInput::with_need_weights(bool on) const {
  MhaInput c = *this;
  c.need_weights = on;
  return c;
}

// [batch, seq, d_model] -> [batch, n_heads, seq, d_k]
Tensor<4> MultiHeadAttention::split_heads(const Tensor<3>& x) const {
  const Shape& s = x.shape();
  return x.reshape<4>(Shape{s[0], s[1], n_heads, d_k()}).swap_dims(1, 2);
}

MhaOutput MultiHeadAttention::attend(const MhaInput& input, const Tensor<4>& q, const Tensor<4>& k,
                                     const Tensor<4>& v) const {
  module::AttentionOptions o;
  o.causal = input.causal;
  if (input.mask_attn) o.bool_mask = input.mask_attn->unsqueeze_dim<4>(1);
  o.key_padding_mask = input.mask_pad;
  o.dropout = dropout.prob;
  o.training = dropout.is_training();
  o.quiet_softmax = quiet_softmax;
  MhaOutput out;
  Tensor<4> context;
  if (input.need_weights) {
    auto r = module::attention_with_weights(q, k, v, o);
    context = r.context;
    out.weights = r.weights;
  } else {
    context = module::attention(q, k, v, o);
  }
  const Shape& s = context.shape();  // [batch, n_heads, seq_q, d_k]
  out.context = output.forward(context.swap_dims(1, 2).reshape<3>(Shape{s[0], s[2], d_model()}));
  return out;
}

namespace {

bool same_tensor(const Tensor<3>& a, const Tensor<3>& b) {
  return a.raw().value() == b.raw().value();
}

}  // namespace

// Self-attention (one tensor as query, key and value) projects through the three weights
// joined, [d_model, 3 d_model] (PyTorch's packed in_proj_weight): one product over the input
// instead of three, and in the backward one data and one weight gradient product. Each output
// column is computed as the separate projections compute it; q, k and v are views of the
// product's columns, which the attention kernel reads in place.
std::array<Tensor<3>, 3> MultiHeadAttention::project_self(const Tensor<3>& x) const {
  const Shape& s = x.shape();
  const int64_t d = d_model();
  Tensor<2> w = Tensor<2>::cat({query.weight.val(), key.weight.val(), value.weight.val()}, 1);
  Tensor<2> y = x.flatten<2>(0, 1).matmul(w);
  if (query.bias) {
    y = y +
        Tensor<1>::cat({query.bias->val(), key.bias->val(), value.bias->val()}, 0).unsqueeze<2>();
  }
  Tensor<3> qkv = y.reshape<3>(Shape{s[0], s[1], 3 * d});
  return {qkv.narrow(2, 0, d), qkv.narrow(2, d, d), qkv.narrow(2, 2 * d, d)};
}

MhaOutput MultiHeadAttention::forward(const MhaInput& input) const {
  for (const Tensor<3>* x : {&input.query, &input.key, &input.value}) {
    detail::check_dim_size("MultiHeadAttention", x->raw(), 2, d_model(), "features (d_model)");
  }
  const bool biases = query.bias.has_value();
  if (same_tensor(input.query, input.key) && same_tensor(input.query, input.value) &&
      key.bias.has_value() == biases && value.bias.has_value() == biases) {
    auto [q, k, v] = project_self(input.query);
    return attend(input, split_heads(q), split_heads(k), split_heads(v));
  }
  return attend(input, split_heads(query.forward(input.query)), split_heads(key.forward(input.key)),
                split_heads(value.forward(input.value)));
}

MhaOutput MultiHeadAttention::forward_autoregressive(const MhaInput& input, MhaCache& cache) const {
  detail::check_dim_size("MultiHeadAttention", input.query.raw(), 2, d_model(),
                         "features (d_model)");
  if (!(cache.fixed && cache.key)) {
    for (const Tensor<3>* x : {&input.key, &input.value}) {
      detail::check_dim_size("MultiHeadAttention", x->raw(), 2, d_model(), "features (d_model)");
    }
    Tensor<4> k = split_heads(key.forward(input.key)), v = split_heads(value.forward(input.value));
    cache.key = cache.key ? Tensor<4>::cat({*cache.key, k}, 2) : k;
    cache.value = cache.value ? Tensor<4>::cat({*cache.value, v}, 2) : v;
  }
  return attend(input, split_heads(query.forward(input.query)), *cache.key, *cache.value);
}

MultiHeadAttention MultiHeadAttentionConfig::init(const Device& device) const {
  detail::check_positive("MultiHeadAttentionConfig", "d_model", static_cast<double>(d_model));
  detail::check_positive("MultiHeadAttentionConfig", "n_heads", static_cast<double>(n_heads));
  if (d_model % n_heads != 0) {
    detail::throw_layer_error("MultiHeadAttentionConfig", "d_model (" + std::to_string(d_model) +
                                                              ") must be divisible by n_heads (" +
                                                              std::to_string(n_heads) + ")");
  }
  LinearConfig linear = LinearConfig(d_model, d_model).with_initializer(initializer);
  MultiHeadAttention m;
  m.query = linear.init(device);
  m.key = linear.init(device);
  m.value = linear.init(device);
  m.output = linear.init(device);
  m.dropout = DropoutConfig(dropout).init();
  m.n_heads = n_heads;
  m.quiet_softmax = quiet_softmax;
  return m;
}

Tensor<3, Bool> generate_autoregressive_mask(int64_t batch, int64_t seq, const Device& device) {
  return Tensor<3, Bool>::tril_mask(Shape{batch, seq, seq}, 0, device);
}

GeneratePaddingMask generate_padding_mask(int64_t pad_token,
                                          const std::vector<std::vector<int64_t>>& tokens_list,
                                          std::optional<int64_t> max_seq_length,
                                          const Device& device) {
  if (tokens_list.empty()) detail::throw_layer_error("generate_padding_mask", "no token lists");
  int64_t seq = 0;
  for (const auto& t : tokens_list) seq = std::max<int64_t>(seq, static_cast<int64_t>(t.size()));
  if (max_seq_length) seq = std::min(seq, *max_seq_length);
  const auto batch = static_cast<int64_t>(tokens_list.size());
  std::vector<int64_t> ids(static_cast<size_t>(batch * seq), pad_token);
  for (int64_t b = 0; b < batch; ++b) {
    const auto& t = tokens_list[static_cast<size_t>(b)];
    const int64_t n = std::min<int64_t>(seq, static_cast<int64_t>(t.size()));
    std::copy(t.begin(), t.begin() + n, ids.begin() + b * seq);
  }
  auto tensor = Tensor<2, Int>::from_data(TensorData(ids, Shape{batch, seq}), device);
  return {tensor, tensor.equal_elem(pad_token)};
}

}  // namespace ember::nn
