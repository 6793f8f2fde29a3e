#include "nn/cross_attention.h"

#include "nn/checks.h"

namespace ember::nn {
namespace {
// [batch, seq, heads * d] -> [batch, heads, seq, d]
Tensor<4> split(const Tensor<3>& x, int64_t heads) {
  const Shape& s = x.shape();
  return x.reshape<4>(Shape{s[0], s[1], heads, s[2] / heads}).swap_dims(1, 2);
}
}  // namespace

Tensor<3> CrossAttention::forward(const Tensor<3>& query_in, const Tensor<3>& context,
                                  const std::optional<Tensor<2, Bool>>& mask_pad) const {
  detail::check_dim_size("CrossAttention", query_in.raw(), 2, query.d_input(), "query features");
  detail::check_dim_size("CrossAttention", context.raw(), 2, key.d_input(), "context features");
  module::AttentionOptions o;
  o.key_padding_mask = mask_pad;
  o.dropout = dropout.prob;
  o.training = dropout.is_training();
  o.quiet_softmax = quiet_softmax;
  Tensor<4> y = module::attention(split(query.forward(query_in), n_heads),
                                  split(key.forward(context), n_heads_kv),
                                  split(value.forward(context), n_heads_kv), o);
  const Shape& s = y.shape();  // [batch, n_heads, seq_q, d_head]
  return output.forward(y.swap_dims(1, 2).reshape<3>(Shape{s[0], s[2], s[1] * s[3]}));
}

CrossAttention CrossAttentionConfig::init(const Device& device) const {
  const char* name = "CrossAttentionConfig";
  for (auto [field, v] : {std::pair{"d_query", d_query},
                          {"d_context", d_context},
                          {"n_heads", n_heads},
                          {"n_heads_kv", n_heads_kv},
                          {"d_head", d_head}}) {
    detail::check_positive(name, field, static_cast<double>(v));
  }
  if (n_heads % n_heads_kv != 0) {
    detail::throw_layer_error(name, "n_heads_kv (" + std::to_string(n_heads_kv) +
                                        ") must divide n_heads (" + std::to_string(n_heads) + ")");
  }
  auto linear = [&](int64_t in, int64_t out) {
    return LinearConfig(in, out).with_initializer(initializer).init(device);
  };
  return {linear(d_query, n_heads * d_head),
          linear(d_context, n_heads_kv * d_head),
          linear(d_context, n_heads_kv * d_head),
          linear(n_heads * d_head, d_query),
          DropoutConfig(dropout).init(),
          n_heads,
          n_heads_kv,
          quiet_softmax};
}

}  // namespace ember::nn
