// Trains a multilayer perceptron on Fashion-MNIST: the model is an nn module (nn::Linear,
// nn::Relu), the loss nn::CrossEntropyLoss, and the optimizer optim::Adam (Burn's defaults), which
// keeps its moments by parameter id. Each training step records the forward pass, backward() and
// the parameter update as lazy ops; reading the loss runs them as one flush (fused on GPUs).
//
//   fashion_mnist [--epochs N] [--batch B] [--lr X] [--hidden H] [--limit STEPS] [--eval IMAGES]
//                 [--workers K] [--data DIR] [--min-accuracy PERCENT]
//
// --limit and --eval shorten an epoch and the evaluation (smoke runs); --min-accuracy makes the
// program fail when the last epoch's test accuracy is below PERCENT (the CI check).
//
// The data is the Debian package dataset-fashion-mnist (or --data / $EMBER_FASHION_MNIST_DIR),
// read through data::MnistDataset and batched by a data::DataLoader with K worker threads
// (default 1) that build the next batches while a step runs; EMBER_DEVICE picks the device
// (default: the best available).
#include "data/fashion_mnist.h"

#include <ember/ember.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mnist_training.h"
#include "nn/nn.h"
#include "optim/optim.h"

using namespace ember;
using mnist_training::Batch;
using mnist_training::flat;
using mnist_training::kPixels;
using mnist_training::MnistData;
using mnist_training::ProgressBar;
using mnist_training::seconds_since;

namespace {

struct Options {
  int epochs = 1;
  int64_t batch = 64;
  double lr = 1e-3;
  int64_t hidden = 256;
  int64_t limit = 0;   // steps per epoch, 0 = the whole training set
  int64_t eval = 0;    // test images evaluated, 0 = all
  size_t workers = 1;  // data loader threads
  double min_accuracy = 0;
  std::string data_dir = data::default_fashion_mnist_dir();
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error("fashion_mnist: " + arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--epochs") {
      o.epochs = std::stoi(value());
    } else if (arg == "--batch") {
      o.batch = std::stoll(value());
    } else if (arg == "--lr") {
      o.lr = std::stod(value());
    } else if (arg == "--hidden") {
      o.hidden = std::stoll(value());
    } else if (arg == "--limit") {
      o.limit = std::stoll(value());
    } else if (arg == "--eval") {
      o.eval = std::stoll(value());
    } else if (arg == "--min-accuracy") {
      o.min_accuracy = std::stod(value());
    } else if (arg == "--workers") {
      o.workers = std::stoul(value());
    } else if (arg == "--data") {
      o.data_dir = value();
    } else {
      throw Error("fashion_mnist: unknown argument " + arg +
                  " (known: --epochs --batch --lr --hidden --limit --eval --workers --data "
                  "--min-accuracy)");
    }
  }
  if (o.epochs < 1 || o.batch < 1 || o.hidden < 1 || o.lr <= 0) {
    throw Error("fashion_mnist: --epochs, --batch, --hidden and --lr must be positive");
  }
  return o;
}

// The model: fields and one declaration naming them.
struct Mlp {
  nn::Linear fc1, fc2, fc3;
  nn::Relu activation;

  Tensor<2> forward(const Tensor<2>& x) const {
    auto h = activation.forward(fc1.forward(x));
    h = activation.forward(fc2.forward(h));
    return fc3.forward(h);
  }
  EMBER_MODULE(Mlp, fc1, fc2, fc3, activation)
};

Mlp make_mlp(int64_t hidden, const Device& dev) {
  return {nn::LinearConfig(kPixels, hidden).init(dev), nn::LinearConfig(hidden, hidden).init(dev),
          nn::LinearConfig(hidden, 10).init(dev), nn::Relu()};
}

double test_accuracy(const Mlp& trained, const MnistData& data, int64_t images, const Device& dev) {
  Mlp model = trained.valid();
  return mnist_training::test_accuracy(
      [&](const Tensor<3>& images) { return model.forward(flat(images)); }, data, images, dev);
}

// Returns the last epoch's test accuracy.
double train(const Options& o) {
  Device dev = Device::default_device();
  std::printf("device: %s\n", dev.to_string().c_str());
  MnistData data = mnist_training::load_mnist(o.data_dir);
  auto loader = mnist_training::train_loader(data, o.batch, o.workers, dev);
  std::printf("data: %zu training and %zu test images from %s (loader workers: %zu)\n",
              data.train->len(), data.test->len(), o.data_dir.c_str(), o.workers);
  std::printf("model: MLP 784-%lld-%lld-10, Adam lr %g, batch %lld, checkpointing %s\n",
              static_cast<long long>(o.hidden), static_cast<long long>(o.hidden), o.lr,
              static_cast<long long>(o.batch), ir::checkpointing_name(checkpointing()));
  seed(42);
  Mlp model = make_mlp(o.hidden, dev);
  std::printf("%s\n", model.to_string().c_str());
  nn::CrossEntropyLoss loss_fn = nn::CrossEntropyLossConfig().init();
  optim::Adam adam = optim::AdamConfig().init();
  auto steps = static_cast<int64_t>(loader->num_batches());
  if (o.limit > 0) steps = std::min(steps, o.limit);
  int step = 0;
  double accuracy = 0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    auto batches = loader->iter();  // this epoch's order, from the seed and the epoch number
    ProgressBar bar(epoch, o.epochs, steps);
    reset_stats(dev);
    auto t0 = std::chrono::steady_clock::now();
    double loss_sum = 0;
    for (int64_t s = 0; s < steps; ++s) {
      Batch b = *batches->next();
      auto loss = loss_fn.forward(model.forward(flat(b.images)), b.targets);
      Gradients grads = loss.backward();
      ++step;
      model = adam.step(o.lr, model, optim::GradientsParams::from_grads(grads, model));
      const double step_loss = loss.into_scalar();  // the step's sync point
      if (!std::isfinite(step_loss)) {
        throw Error("fashion_mnist: training diverged: loss " + std::to_string(step_loss) +
                    " at step " + std::to_string(step));
      }
      loss_sum += step_loss;
      bar.update(s + 1, loss_sum / static_cast<double>(s + 1), seconds_since(t0));
    }
    double epoch_s = seconds_since(t0);
    Stats st = stats(dev);
    accuracy = test_accuracy(model, data, o.eval, dev);
    std::printf("epoch %d: train loss %.4f, test accuracy %.2f%%, %.1f s (%.2f ms/step)\n", epoch,
                loss_sum / static_cast<double>(steps), 100 * accuracy, epoch_s,
                1e3 * epoch_s / static_cast<double>(steps));
    std::printf(
        "  per step: %.1f ops recorded, %.1f kernels launched, %.1f ops fused; %lld compiles "
        "(%.0f ms), %lld cache hits, peak memory %.1f MiB\n",
        static_cast<double>(st.ops_recorded) / steps,
        static_cast<double>(st.kernels_launched) / steps, static_cast<double>(st.ops_fused) / steps,
        static_cast<long long>(st.compiles), st.compile_ms, static_cast<long long>(st.cache_hits),
        static_cast<double>(st.peak_bytes) / (1 << 20));
  }
  return accuracy;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    double accuracy = train(o);
    if (100 * accuracy < o.min_accuracy) {
      std::fprintf(stderr, "error: test accuracy %.2f%% is below --min-accuracy %.2f%%\n",
                   100 * accuracy, o.min_accuracy);
      return 1;
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
