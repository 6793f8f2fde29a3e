#include "nn/feed_forward.h"

#include "frontend/activation.h"
#include "nn/checks.h"

namespace ember::nn {

void check_block_activation(const char* layer, const std::string& name) {
  if (name != "gelu" && name != "relu" && name != "silu" && name != "tanh") {
    detail::throw_layer_error(layer,
                              "activation must be gelu, relu, silu or tanh, got '" + name + "'");
  }
}

template <int D>
Tensor<D> apply_block_activation(const std::string& name, const Tensor<D>& x) {
  if (name == "relu") return activation::relu(x);
  if (name == "silu") return activation::silu(x);
  if (name == "tanh") return x.tanh();
  return activation::gelu(x);
}
template Tensor<3> apply_block_activation(const std::string&, const Tensor<3>&);

Tensor<3> PositionWiseFeedForward::forward(const Tensor<3>& x) const {
  return linear_outer.forward(
      dropout.forward(apply_block_activation(activation, linear_inner.forward(x))));
}

PositionWiseFeedForward PositionWiseFeedForwardConfig::init(const Device& device) const {
  check_block_activation("PositionWiseFeedForwardConfig", activation);
  PositionWiseFeedForward f;
  f.linear_inner = LinearConfig(d_model, d_ff).with_initializer(initializer).init(device);
  f.linear_outer = LinearConfig(d_ff, d_model).with_initializer(initializer).init(device);
  f.dropout = DropoutConfig(dropout).init();
  f.activation = activation;
  return f;
}

}  // namespace ember::nn
