#include "nn/batch_norm.h"

#include "nn/initializer.h"

namespace ember::nn {

BatchNorm BatchNormConfig::init(const Device& device) const {
  detail::check_positive("BatchNormConfig", "num_features", static_cast<double>(num_features));
  detail::check_positive("BatchNormConfig", "epsilon", epsilon);
  detail::check_range("BatchNormConfig", "momentum", momentum, 0, 1);
  BatchNorm b;
  b.gamma = Initializer::ones().init_param<1>(Shape{num_features}, device);
  b.beta = Initializer::zeros().init_param<1>(Shape{num_features}, device);
  b.running_mean = Buffer<Tensor<1>>(Tensor<1>::zeros(Shape{num_features}, device));
  b.running_var = Buffer<Tensor<1>>(Tensor<1>::ones(Shape{num_features}, device));
  b.momentum = momentum;
  b.epsilon = epsilon;
  return b;
}

}  // namespace ember::nn
