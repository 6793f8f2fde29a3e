#pragma once
// CrossAttention with grouped-query heads: queries from one sequence [batch, seq_q, d_query]
// attend to a context [batch, seq_k, d_context] through n_heads query heads sharing n_heads_kv
// key/value heads (n_heads_kv divides n_heads; n_heads_kv == n_heads is plain multi-head
// attention, 1 is multi-query attention).
#include <optional>

#include "frontend/module.h"
#include "nn/dropout.h"
#include "nn/linear.h"

namespace ember::nn {

class CrossAttention {
 public:
  Linear query;   // d_query -> n_heads * d_head
  Linear key;     // d_context -> n_heads_kv * d_head
  Linear value;   // d_context -> n_heads_kv * d_head
  Linear output;  // n_heads * d_head -> d_query
  Dropout dropout;
  int64_t n_heads = 1, n_heads_kv = 1;
  bool quiet_softmax = false;

  int64_t d_head() const { return query.d_output() / n_heads; }
  // mask_pad [batch, seq_k], true: a padded context position. -> [batch, seq_q, d_query]
  Tensor<3> forward(const Tensor<3>& query_in, const Tensor<3>& context,
                    const std::optional<Tensor<2, Bool>>& mask_pad = std::nullopt) const;
  void display_attributes(Attributes& a) const {
    a.add("n_heads", n_heads).add("n_heads_kv", n_heads_kv).add("d_head", d_head());
  }
  EMBER_MODULE(CrossAttention, query, key, value, output, dropout, n_heads, n_heads_kv,
               quiet_softmax)
};

struct CrossAttentionConfig {
  int64_t d_query = 0, d_context = 0, n_heads = 0, n_heads_kv = 0, d_head = 0;
  double dropout = 0.1;
  bool quiet_softmax = false;
  Initializer initializer = Initializer::kaiming_uniform(1.0 / std::sqrt(3.0), false);

  CrossAttentionConfig(int64_t d_query, int64_t d_context, int64_t n_heads, int64_t n_heads_kv,
                       int64_t d_head)
      : d_query(d_query),
        d_context(d_context),
        n_heads(n_heads),
        n_heads_kv(n_heads_kv),
        d_head(d_head) {}
  CrossAttention init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(CrossAttentionConfig, d_query, d_context, n_heads, n_heads_kv, d_head, dropout,
               quiet_softmax, initializer)
};

}  // namespace ember::nn
