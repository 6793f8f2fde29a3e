#pragma once
// The Burn Book guide's model ("Model"): two 3x3 convolutions with dropout, ReLU, adaptive
// average pooling to 8x8, then two linear layers; and its training and validation steps
// ("Training": a classification output for the Learner's metrics).
#include <ember/ember.h>

#include "data/mnist_batcher.h"
#include "nn/nn.h"
#include "train/output.h"

namespace guide {

using namespace ember;

struct Model {
  nn::Conv2d conv1, conv2;
  nn::AdaptiveAvgPool2d pool;
  nn::Dropout dropout;
  nn::Linear linear1, linear2;
  nn::Relu activation;

  // images [batch, height, width] -> logits [batch, num_classes]
  Tensor<2> forward(const Tensor<3>& images) const {
    const int64_t batch = images.shape()[0];
    auto x = images.unsqueeze_dim<4>(1);  // [batch, 1, height, width]
    x = conv1.forward(x);                 // [batch, 8, _, _]
    x = dropout.forward(x);
    x = conv2.forward(x);  // [batch, 16, _, _]
    x = dropout.forward(x);
    x = activation.forward(x);
    x = pool.forward(x);  // [batch, 16, 8, 8]
    auto h = x.reshape<2>(Shape{batch, 16 * 8 * 8});
    h = linear1.forward(h);
    h = dropout.forward(h);
    h = activation.forward(h);
    return linear2.forward(h);  // [batch, num_classes]
  }

  train::ClassificationOutput forward_classification(const Tensor<3>& images,
                                                     const Tensor<1, Int>& targets) const {
    auto output = forward(images);
    auto loss = nn::CrossEntropyLossConfig().init().forward(output, targets);
    return {loss, output, targets};
  }

  // Burn's TrainStep and ValidStep.
  train::TrainOutput<train::ClassificationOutput> train_step(const data::MnistBatch& b) const {
    auto item = forward_classification(b.images, b.targets);
    return {*this, item.loss.backward(), item};
  }
  train::ClassificationOutput valid_step(const data::MnistBatch& b) const {
    return forward_classification(b.images, b.targets);
  }

  EMBER_MODULE(Model, conv1, conv2, pool, dropout, linear1, linear2, activation)
};

struct ModelConfig {
  int64_t num_classes = 10;
  int64_t hidden_size = 512;
  double dropout = 0.5;
  ModelConfig(int64_t num_classes, int64_t hidden_size)
      : num_classes(num_classes), hidden_size(hidden_size) {}

  Model init(const Device& device) const {
    return {nn::Conv2dConfig({1, 8}, {3, 3}).init(device),
            nn::Conv2dConfig({8, 16}, {3, 3}).init(device),
            nn::AdaptiveAvgPool2dConfig({8, 8}).init(),
            nn::DropoutConfig(dropout).init(),
            nn::LinearConfig(16 * 8 * 8, hidden_size).init(device),
            nn::LinearConfig(hidden_size, num_classes).init(device),
            nn::Relu()};
  }
  EMBER_CONFIG(ModelConfig, num_classes, hidden_size, dropout)
};

}  // namespace guide
