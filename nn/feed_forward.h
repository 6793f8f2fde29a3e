#pragma once
// PositionWiseFeedForward: linear_outer(dropout(activation(linear_inner(x)))) applied to every
// position (Burn's nn::PositionWiseFeedForward, the transformer's feed-forward block).
#include <string>

#include "nn/dropout.h"
#include "nn/linear.h"

namespace ember::nn {

// The activations a transformer block may use, by name: "gelu" (Burn's default), "relu",
// "silu" or "tanh". Throws naming `layer` for another name.
void check_block_activation(const char* layer, const std::string& name);
template <int D>
Tensor<D> apply_block_activation(const std::string& name, const Tensor<D>& x);

class PositionWiseFeedForward {
 public:
  Linear linear_inner;  // d_model -> d_ff
  Linear linear_outer;  // d_ff -> d_model
  Dropout dropout;
  std::string activation = "gelu";

  // [batch, seq, d_model] -> the same shape
  Tensor<3> forward(const Tensor<3>& x) const;
  void display_attributes(Attributes& a) const {
    a.add("d_model", linear_inner.d_input()).add("d_ff", linear_inner.d_output());
    a.add("activation", activation);
  }
  EMBER_MODULE(PositionWiseFeedForward, linear_inner, linear_outer, dropout, activation)
};

struct PositionWiseFeedForwardConfig {
  int64_t d_model = 0;
  int64_t d_ff = 0;
  double dropout = 0.1;
  std::string activation = "gelu";
  Initializer initializer = Initializer::kaiming_uniform(1.0 / std::sqrt(3.0), false);

  PositionWiseFeedForwardConfig(int64_t d_model, int64_t d_ff) : d_model(d_model), d_ff(d_ff) {}
  PositionWiseFeedForward init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(PositionWiseFeedForwardConfig, d_model, d_ff, dropout, activation, initializer)
};

}  // namespace ember::nn
