#pragma once
// Three linear layers with ReLUs between: the MLP of mlp_train_step and of the CPU's
// mlp_train_step_cpu (examples/fashion_mnist's model).
#include <ember/ember.h>

#include "nn/nn.h"

namespace ember::bench {

struct Mlp3 {
  nn::Linear l1, l2, l3;
  Tensor<2> forward(const Tensor<2>& x) const {
    return l3.forward(activation::relu(l2.forward(activation::relu(l1.forward(x)))));
  }
  EMBER_MODULE(Mlp3, l1, l2, l3)
};

}  // namespace ember::bench
