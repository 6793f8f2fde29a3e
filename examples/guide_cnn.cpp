// The Burn Book guide's model, written with nn pieces only: two 3x3 convolutions with dropout,
// ReLU, adaptive average pooling to 8x8, then two linear layers, trained on Fashion-MNIST with
// nn::CrossEntropyLoss and optim::Adam (Burn's defaults).
//
//   guide_cnn [--epochs N] [--batch B] [--lr X] [--limit STEPS] [--eval IMAGES] [--workers K]
//             [--data DIR] [--min-accuracy PERCENT] [--check-loss-drop]
//
// --limit trains on the first STEPS batches of each epoch (a quick run); --check-loss-drop makes
// the program fail unless the mean loss of the last quarter of the steps is below the first
// quarter's (the CI smoke run). The data comes as in the guide: data::MnistDataset batched by
// data::MnistBatcher through a data::DataLoader (K worker threads, default 1, shuffled from seed
// 42 every epoch). EMBER_DEVICE picks the device (default: the best available).
#include <ember/ember.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "mnist_training.h"
#include "nn/nn.h"
#include "optim/optim.h"

using namespace ember;
using namespace mnist_training;

namespace {

// The model: fields and one declaration naming them (Burn's #[derive(Module)]).
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
  EMBER_MODULE(Model, conv1, conv2, pool, dropout, linear1, linear2, activation)
};

// The model's config (Burn's #[derive(Config)]): required values, defaults, JSON.
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

struct Options {
  int epochs = 1;
  int64_t batch = 64;
  double lr = 1e-3;
  int64_t limit = 0;   // steps per epoch, 0 = the whole training set
  int64_t eval = 0;    // test images evaluated, 0 = all
  size_t workers = 1;  // data loader threads
  double min_accuracy = 0;
  bool check_loss_drop = false;
  std::string data_dir = data::default_fashion_mnist_dir();
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error("guide_cnn: " + arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--epochs") {
      o.epochs = std::stoi(value());
    } else if (arg == "--batch") {
      o.batch = std::stoll(value());
    } else if (arg == "--lr") {
      o.lr = std::stod(value());
    } else if (arg == "--limit") {
      o.limit = std::stoll(value());
    } else if (arg == "--eval") {
      o.eval = std::stoll(value());
    } else if (arg == "--min-accuracy") {
      o.min_accuracy = std::stod(value());
    } else if (arg == "--workers") {
      o.workers = std::stoul(value());
    } else if (arg == "--check-loss-drop") {
      o.check_loss_drop = true;
    } else if (arg == "--data") {
      o.data_dir = value();
    } else {
      throw Error("guide_cnn: unknown argument " + arg +
                  " (known: --epochs --batch --lr --limit --eval --workers --data "
                  "--min-accuracy --check-loss-drop)");
    }
  }
  if (o.epochs < 1 || o.batch < 1 || o.lr <= 0 || o.limit < 0) {
    throw Error("guide_cnn: --epochs, --batch and --lr must be positive");
  }
  return o;
}

int run(const Options& o) {
  Device dev = Device::default_device();
  std::printf("device: %s\n", dev.to_string().c_str());
  MnistData data = load_mnist(o.data_dir);
  auto loader = train_loader(data, o.batch, o.workers, dev);
  std::printf("data: %zu training and %zu test images from %s (loader workers: %zu)\n",
              data.train->len(), data.test->len(), o.data_dir.c_str(), o.workers);
  seed(42);
  ModelConfig config(10, 512);
  Model model = config.init(dev);
  std::printf("config: %s\n", config.to_json().dump().c_str());
  std::printf("%s\n", model.to_string().c_str());
  std::printf("Adam lr %g, batch %lld\n", o.lr, static_cast<long long>(o.batch));
  nn::CrossEntropyLoss loss_fn = nn::CrossEntropyLossConfig().init();
  optim::Adam adam = optim::AdamConfig().init();
  auto steps = static_cast<int64_t>(loader->num_batches());
  if (o.limit > 0) steps = std::min(steps, o.limit);
  std::vector<double> losses;
  double accuracy = 0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    auto batches = loader->iter();  // this epoch's order, from the seed and the epoch number
    ProgressBar bar(epoch, o.epochs, steps);
    auto t0 = std::chrono::steady_clock::now();
    double loss_sum = 0;
    for (int64_t s = 0; s < steps; ++s) {
      Batch b = *batches->next();
      auto loss = loss_fn.forward(model.forward(b.images), b.targets);
      Gradients grads = loss.backward();
      model = adam.step(o.lr, model, optim::GradientsParams::from_grads(grads, model));
      const double step_loss = loss.into_scalar();  // the step's sync point
      if (!std::isfinite(step_loss)) {
        throw Error("guide_cnn: training diverged: loss " + std::to_string(step_loss) +
                    " at step " + std::to_string(losses.size() + 1));
      }
      losses.push_back(step_loss);
      loss_sum += step_loss;
      bar.update(s + 1, loss_sum / static_cast<double>(s + 1), seconds_since(t0));
    }
    double epoch_s = seconds_since(t0);
    Model eval_model = model.valid();
    accuracy = test_accuracy([&](const Tensor<3>& images) { return eval_model.forward(images); },
                             data, o.eval, dev);
    std::printf("epoch %d: train loss %.4f, test accuracy %.2f%%, %.1f s (%.2f ms/step)\n", epoch,
                loss_sum / static_cast<double>(steps), 100 * accuracy, epoch_s,
                1e3 * epoch_s / static_cast<double>(steps));
  }
  int status = 0;
  if (o.check_loss_drop) {
    const size_t q = std::max<size_t>(1, losses.size() / 4);
    double first = 0, last = 0;
    for (size_t i = 0; i < q; ++i) {
      first += losses[i] / static_cast<double>(q);
      last += losses[losses.size() - q + i] / static_cast<double>(q);
    }
    std::printf("mean loss: first %zu steps %.4f, last %zu steps %.4f\n", q, first, q, last);
    if (!(last < first)) {
      std::fprintf(stderr, "error: the loss did not decrease (%.4f -> %.4f)\n", first, last);
      status = 1;
    }
  }
  if (100 * accuracy < o.min_accuracy) {
    std::fprintf(stderr, "error: test accuracy %.2f%% is below --min-accuracy %.2f%%\n",
                 100 * accuracy, o.min_accuracy);
    status = 1;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
