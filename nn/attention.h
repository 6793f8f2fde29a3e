#pragma once
// Multi-head attention (Burn's nn::attention::MultiHeadAttention; PyTorch's nn.MultiheadAttention
// with batch_first): queries, keys and values projected by three Linears, split into heads,
// attended by module::attention, merged and projected by a fourth. Masks follow Burn: true marks
// what is masked out. A masked score takes no part in the softmax (a query whose keys are all
// masked gets a zero context), where Burn fills it with min_float.
#include <array>
#include <optional>
#include <vector>

#include "frontend/module.h"
#include "nn/dropout.h"
#include "nn/linear.h"

namespace ember::nn {

struct MhaInput {
  Tensor<3> query;                           // [batch, seq_q, d_model]
  Tensor<3> key;                             // [batch, seq_k, d_model]
  Tensor<3> value;                           // [batch, seq_k, d_model]
  std::optional<Tensor<2, Bool>> mask_pad;   // [batch, seq_k], true: a padded key
  std::optional<Tensor<3, Bool>> mask_attn;  // [batch, seq_q, seq_k], true: masked out
  // Causal masking without a mask tensor (module::attention's bottom-right alignment).
  bool causal = false;
  // Whether the output carries the attention weights; a fused kernel never forms them.
  bool need_weights = true;

  static MhaInput self_attn(const Tensor<3>& x) { return cross(x, x, x); }
  static MhaInput cross(const Tensor<3>& q, const Tensor<3>& k, const Tensor<3>& v) {
    MhaInput in;
    in.query = q;
    in.key = k;
    in.value = v;
    return in;
  }
  MhaInput with_mask_pad(const Tensor<2, Bool>& m) const;
  MhaInput with_mask_attn(const Tensor<3, Bool>& m) const;
  MhaInput with_causal(bool on) const;
  MhaInput with_need_weights(bool on) const;
};

struct MhaOutput {
  Tensor<3> context;                 // [batch, seq_q, d_model]
  std::optional<Tensor<4>> weights;  // [batch, n_heads, seq_q, seq_k], after dropout
};

// The keys and values (projected, [batch, n_heads, seq, d_k]) of earlier decoding steps. A
// growing cache appends each step's keys and values; a fixed one (cross-attention to an
// encoder's memory) is filled on the first step and reused after.
struct MhaCache {
  std::optional<Tensor<4>> key, value;
  bool fixed = false;

  static MhaCache growing() { return {}; }
  static MhaCache fixed_memory() { return {std::nullopt, std::nullopt, true}; }
  int64_t len() const { return key ? key->shape()[2] : 0; }
};

class MultiHeadAttention {
 public:
  Linear query, key, value, output;
  Dropout dropout;
  int64_t n_heads = 1;
  bool quiet_softmax = false;

  int64_t d_model() const { return query.d_input(); }
  int64_t d_k() const { return d_model() / n_heads; }

  MhaOutput forward(const MhaInput& input) const;
  // One decoding step: input holds the new positions only (keys and values of the same new
  // positions, or anything for a filled fixed cache); masks cover every key so far
  // (mask_pad [batch, cache + new], mask_attn [batch, new, cache + new]).
  MhaOutput forward_autoregressive(const MhaInput& input, MhaCache& cache) const;

  void display_attributes(Attributes& a) const {
    a.add("d_model", d_model()).add("n_heads", n_heads).add("d_k", d_k());
    a.add("dropout", dropout.prob).add("quiet_softmax", quiet_softmax);
  }
  EMBER_MODULE(MultiHeadAttention, query, key, value, output, dropout, n_heads, quiet_softmax)

 private:
  Tensor<4> split_heads(const Tensor<3>& x) const;
  std::array<Tensor<3>, 3> project_self(const Tensor<3>& x) const;
  MhaOutput attend(const MhaInput& input, const Tensor<4>& q, const Tensor<4>& k,
                   const Tensor<4>& v) const;
};

struct MultiHeadAttentionConfig {
  int64_t d_model = 0;
  int64_t n_heads = 0;
  double dropout = 0.1;
  bool quiet_softmax = false;
  Initializer initializer = Initializer::kaiming_uniform(1.0 / std::sqrt(3.0), false);

  MultiHeadAttentionConfig(int64_t d_model, int64_t n_heads) : d_model(d_model), n_heads(n_heads) {}
  MultiHeadAttention init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(MultiHeadAttentionConfig, d_model, n_heads, dropout, quiet_softmax, initializer)
};

// [batch, seq, seq], true above the diagonal: position i may not attend to j > i.
Tensor<3, Bool> generate_autoregressive_mask(int64_t batch, int64_t seq,
                                             const Device& device = Device::default_device());

struct GeneratePaddingMask {
  Tensor<2, Int> tensor;  // [batch, seq] token ids, padded with pad_token
  Tensor<2, Bool> mask;   // [batch, seq], true where tensor holds pad_token
};
// Pads (or truncates to max_seq_length) each token list to the longest one's length.
GeneratePaddingMask generate_padding_mask(int64_t pad_token,
                                          const std::vector<std::vector<int64_t>>& tokens_list,
                                          std::optional<int64_t> max_seq_length = std::nullopt,
                                          const Device& device = Device::default_device());

}  // namespace ember::nn
