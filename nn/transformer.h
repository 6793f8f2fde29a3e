#pragma once
// Transformer encoder and decoder stacks (Burn's nn::transformer; PyTorch's nn.Transformer*
// with batch_first). Each sub-layer (self-attention, cross-attention, feed-forward) adds its
// dropped-out output to its input; LayerNorm comes before the sub-layer (norm_first) or after
// the residual sum (norm last, the original transformer's order).
#include <optional>
#include <string>
#include <vector>

#include "nn/attention.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"

namespace ember::nn {

struct TransformerEncoderInput {
  Tensor<3> tensor;                          // [batch, seq, d_model]
  std::optional<Tensor<2, Bool>> mask_pad;   // [batch, seq], true: padding
  std::optional<Tensor<3, Bool>> mask_attn;  // [batch, seq, seq], true: masked out
  bool causal = false;  // causal masking without a mask tensor (a decoder-only model)
};

class TransformerEncoderLayer {
 public:
  MultiHeadAttention mha;
  PositionWiseFeedForward pwff;
  LayerNorm norm_1, norm_2;
  Dropout dropout;
  bool norm_first = false;

  Tensor<3> forward(const TransformerEncoderInput& input) const;
  EMBER_MODULE(TransformerEncoderLayer, mha, pwff, norm_1, norm_2, dropout, norm_first)
};

class TransformerEncoder {
 public:
  std::vector<TransformerEncoderLayer> layers;

  // [batch, seq, d_model] -> the same shape
  Tensor<3> forward(const TransformerEncoderInput& input) const;
  EMBER_MODULE(TransformerEncoder, layers)
};

struct TransformerEncoderConfig {
  int64_t d_model = 0, d_ff = 0, n_heads = 0, n_layers = 0;
  double dropout = 0.1;
  bool norm_first = false;
  bool quiet_softmax = false;
  std::string activation = "gelu";
  double layer_norm_eps = 1e-5;
  Initializer initializer = Initializer::kaiming_uniform(1.0 / std::sqrt(3.0), false);

  TransformerEncoderConfig(int64_t d_model, int64_t d_ff, int64_t n_heads, int64_t n_layers)
      : d_model(d_model), d_ff(d_ff), n_heads(n_heads), n_layers(n_layers) {}
  TransformerEncoder init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(TransformerEncoderConfig, d_model, d_ff, n_heads, n_layers, dropout, norm_first,
               quiet_softmax, activation, layer_norm_eps, initializer)
};

struct TransformerDecoderInput {
  Tensor<3> target;                                 // [batch, seq_t, d_model]
  std::optional<Tensor<2, Bool>> target_mask_pad;   // [batch, seq_t]
  std::optional<Tensor<3, Bool>> target_mask_attn;  // [batch, seq_t, seq_t]
  Tensor<3> memory;                                 // [batch, seq_m, d_model]
  std::optional<Tensor<2, Bool>> memory_mask_pad;   // [batch, seq_m]
  std::optional<Tensor<3, Bool>> memory_mask_attn;  // [batch, seq_t, seq_m]
  bool target_causal = false;                       // causal self-attention without a mask tensor
};

// The self-attention keys/values of every layer so far and each layer's projected memory, for
// decoding one step (or a few positions) at a time.
struct TransformerDecoderCache {
  std::vector<MhaCache> self_attn, cross_attn;
  int64_t len() const { return self_attn.empty() ? 0 : self_attn[0].len(); }
};

class TransformerDecoderLayer {
 public:
  MultiHeadAttention self_attn, cross_attn;
  PositionWiseFeedForward pwff;
  LayerNorm norm_1, norm_2, norm_3;
  Dropout dropout;
  bool norm_first = false;

  Tensor<3> forward(const TransformerDecoderInput& input) const;
  Tensor<3> forward_autoregressive(const TransformerDecoderInput& input, MhaCache& self_cache,
                                   MhaCache& cross_cache) const;
  EMBER_MODULE(TransformerDecoderLayer, self_attn, cross_attn, pwff, norm_1, norm_2, norm_3,
               dropout, norm_first)

 private:
  template <class SelfAttend, class CrossAttend>
  Tensor<3> run(const Tensor<3>& target, SelfAttend&& self, CrossAttend&& cross) const;
};

class TransformerDecoder {
 public:
  std::vector<TransformerDecoderLayer> layers;

  // [batch, seq_t, d_model] -> the same shape
  Tensor<3> forward(const TransformerDecoderInput& input) const;
  TransformerDecoderCache new_autoregressive_cache() const;
  // One decoding step: input.target holds the new positions only; self-attention is causal over
  // the cached positions and the new ones (masks, if given, cover all of them). Returns the
  // outputs of the new positions.
  Tensor<3> forward_autoregressive(const TransformerDecoderInput& input,
                                   TransformerDecoderCache& cache) const;
  EMBER_MODULE(TransformerDecoder, layers)
};

struct TransformerDecoderConfig {
  int64_t d_model = 0, d_ff = 0, n_heads = 0, n_layers = 0;
  double dropout = 0.1;
  bool norm_first = false;
  bool quiet_softmax = false;
  std::string activation = "gelu";
  double layer_norm_eps = 1e-5;
  Initializer initializer = Initializer::kaiming_uniform(1.0 / std::sqrt(3.0), false);

  TransformerDecoderConfig(int64_t d_model, int64_t d_ff, int64_t n_heads, int64_t n_layers)
      : d_model(d_model), d_ff(d_ff), n_heads(n_heads), n_layers(n_layers) {}
  TransformerDecoder init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(TransformerDecoderConfig, d_model, d_ff, n_heads, n_layers, dropout, norm_first,
               quiet_softmax, activation, layer_norm_eps, initializer)
};

}  // namespace ember::nn
