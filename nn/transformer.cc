#include "nn/transformer.h"

#include "nn/checks.h"

namespace ember::nn {
namespace {

// One residual sub-layer: x + dropout(f(norm(x))) with norm first, norm(x + dropout(f(x)))
// with norm last.
template <class F>
Tensor<3> residual(const Tensor<3>& x, const LayerNorm& norm, const Dropout& dropout,
                   bool norm_first, F&& f) {
  if (norm_first) return x + dropout.forward(f(norm.forward(x)));
  return norm.forward(x + dropout.forward(f(x)));
}

struct Parts {
  MultiHeadAttentionConfig mha;
  PositionWiseFeedForwardConfig pwff;
  LayerNormConfig norm;
  DropoutConfig dropout;
};

template <class Config>
Parts parts(const Config& c, const char* name) {
  detail::check_positive(name, "n_layers", static_cast<double>(c.n_layers));
  check_block_activation(name, c.activation);
  return {MultiHeadAttentionConfig(c.d_model, c.n_heads)
              .with_dropout(c.dropout)
              .with_quiet_softmax(c.quiet_softmax)
              .with_initializer(c.initializer),
          PositionWiseFeedForwardConfig(c.d_model, c.d_ff)
              .with_dropout(c.dropout)
              .with_activation(c.activation)
              .with_initializer(c.initializer),
          LayerNormConfig(c.d_model).with_epsilon(c.layer_norm_eps), DropoutConfig(c.dropout)};
}

}  // namespace

Tensor<3> TransformerEncoderLayer::forward(const TransformerEncoderInput& input) const {
  Tensor<3> x = residual(input.tensor, norm_1, dropout, norm_first, [&](const Tensor<3>& h) {
    MhaInput in = MhaInput::self_attn(h).with_causal(input.causal).with_need_weights(false);
    in.mask_pad = input.mask_pad;
    in.mask_attn = input.mask_attn;
    return mha.forward(in).context;
  });
  return residual(x, norm_2, dropout, norm_first,
                  [&](const Tensor<3>& h) { return pwff.forward(h); });
}

Tensor<3> TransformerEncoder::forward(const TransformerEncoderInput& input) const {
  TransformerEncoderInput in = input;
  for (const auto& layer : layers) in.tensor = layer.forward(in);
  return in.tensor;
}

TransformerEncoder TransformerEncoderConfig::init(const Device& device) const {
  Parts p = parts(*this, "TransformerEncoderConfig");
  TransformerEncoder e;
  for (int64_t i = 0; i < n_layers; ++i) {
    e.layers.push_back({p.mha.init(device), p.pwff.init(device), p.norm.init(device),
                        p.norm.init(device), p.dropout.init(), norm_first});
  }
  return e;
}

template <class SelfAttend, class CrossAttend>
Tensor<3> TransformerDecoderLayer::run(const Tensor<3>& target, SelfAttend&& self,
                                       CrossAttend&& cross) const {
  Tensor<3> x = residual(target, norm_1, dropout, norm_first, self);
  x = residual(x, norm_2, dropout, norm_first, cross);
  return residual(x, norm_3, dropout, norm_first,
                  [&](const Tensor<3>& h) { return pwff.forward(h); });
}

namespace {
MhaInput self_input(const Tensor<3>& h, const TransformerDecoderInput& in, bool causal) {
  MhaInput m = MhaInput::self_attn(h).with_causal(causal).with_need_weights(false);
  m.mask_pad = in.target_mask_pad;
  m.mask_attn = in.target_mask_attn;
  return m;
}
MhaInput cross_input(const Tensor<3>& h, const TransformerDecoderInput& in) {
  MhaInput m = MhaInput::cross(h, in.memory, in.memory).with_need_weights(false);
  m.mask_pad = in.memory_mask_pad;
  m.mask_attn = in.memory_mask_attn;
  return m;
}
}  // namespace

Tensor<3> TransformerDecoderLayer::forward(const TransformerDecoderInput& input) const {
  return run(
      input.target,
      [&](const Tensor<3>& h) {
        return self_attn.forward(self_input(h, input, input.target_causal)).context;
      },
      [&](const Tensor<3>& h) { return cross_attn.forward(cross_input(h, input)).context; });
}

Tensor<3> TransformerDecoderLayer::forward_autoregressive(const TransformerDecoderInput& input,
                                                          MhaCache& self_cache,
                                                          MhaCache& cross_cache) const {
  return run(
      input.target,
      [&](const Tensor<3>& h) {
        return self_attn.forward_autoregressive(self_input(h, input, true), self_cache).context;
      },
      [&](const Tensor<3>& h) {
        return cross_attn.forward_autoregressive(cross_input(h, input), cross_cache).context;
      });
}

Tensor<3> TransformerDecoder::forward(const TransformerDecoderInput& input) const {
  TransformerDecoderInput in = input;
  for (const auto& layer : layers) in.target = layer.forward(in);
  return in.target;
}

TransformerDecoderCache TransformerDecoder::new_autoregressive_cache() const {
  TransformerDecoderCache c;
  c.self_attn.assign(layers.size(), MhaCache::growing());
  c.cross_attn.assign(layers.size(), MhaCache::fixed_memory());
  return c;
}

Tensor<3> TransformerDecoder::forward_autoregressive(const TransformerDecoderInput& input,
                                                     TransformerDecoderCache& cache) const {
  if (cache.self_attn.size() != layers.size() || cache.cross_attn.size() != layers.size()) {
    detail::throw_layer_error("TransformerDecoder",
                              "the cache was made for " + std::to_string(cache.self_attn.size()) +
                                  " layers, the decoder has " + std::to_string(layers.size()));
  }
  TransformerDecoderInput in = input;
  for (size_t i = 0; i < layers.size(); ++i) {
    in.target = layers[i].forward_autoregressive(in, cache.self_attn[i], cache.cross_attn[i]);
  }
  return in.target;
}

TransformerDecoder TransformerDecoderConfig::init(const Device& device) const {
  Parts p = parts(*this, "TransformerDecoderConfig");
  TransformerDecoder d;
  for (int64_t i = 0; i < n_layers; ++i) {
    d.layers.push_back({p.mha.init(device), p.mha.init(device), p.pwff.init(device),
                        p.norm.init(device), p.norm.init(device), p.norm.init(device),
                        p.dropout.init(), norm_first});
  }
  return d;
}

}  // namespace ember::nn
