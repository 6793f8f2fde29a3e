// The guide's "Inference" chapter: loads the trained model with its config from the artifact
// directory and classifies test images: the given indices one by one (the guide's item 42 by
// default), then the whole test split for its accuracy.
//
//   guide_infer [--artifact-dir DIR] [--index I]... [--data DIR] [--min-accuracy PERCENT]
#include <cstdio>
#include <string>
#include <vector>

#include "data/dataloader.h"
#include "data/fashion_mnist.h"
#include "data/mnist_dataset.h"
#include "nn/record.h"
#include "training.h"

using namespace ember;

namespace {

const char* const kClassNames[] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                   "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

int64_t predict(const guide::Model& model, const data::MnistItem& item, const Device& device) {
  data::MnistBatch batch = data::MnistBatcher().batch({item}, device);
  return model.forward(batch.images).argmax(1).flatten<1>(0, 1).into_scalar<int64_t>();
}

double test_accuracy(const guide::Model& model, const data::MnistDataset& test,
                     const Device& device) {
  auto loader = data::DataLoaderBuilder<data::MnistItem, data::MnistBatch>(
                    std::make_shared<data::MnistBatcher>())
                    .batch_size(500)
                    .build(std::make_shared<data::MnistDataset>(test), device);
  int64_t correct = 0, seen = 0;
  for (auto it = loader->iter(); auto b = it->next();) {
    auto hits = model.forward(b->images).argmax(1).flatten<1>(0, 1).equal(b->targets).int_().sum();
    correct += hits.into_scalar<int64_t>();
    seen += b->targets.shape()[0];
  }
  return 100.0 * static_cast<double>(correct) / static_cast<double>(seen);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string dir = "/tmp/guide", data_dir = data::default_fashion_mnist_dir();
    std::vector<size_t> indices;
    double min_accuracy = 0;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (i + 1 >= argc) throw Error("guide_infer: " + arg + " needs a value");
      const std::string value = argv[++i];
      if (arg == "--artifact-dir")
        dir = value;
      else if (arg == "--index")
        indices.push_back(std::stoul(value));
      else if (arg == "--data")
        data_dir = value;
      else if (arg == "--min-accuracy")
        min_accuracy = std::stod(value);
      else
        throw Error("guide_infer: unknown argument " + arg);
    }
    if (indices.empty()) indices = {42, 0, 1, 2, 3, 4, 5, 6, 7};
    Device device = Device::default_device();
    auto config = guide::TrainingConfig::load(dir + "/config.json");
    NoGradGuard no_grad;
    guide::Model model = nn::load(config.model.init(device), dir + "/model.ember").valid();
    std::printf("loaded %s/model.ember (config %s/config.json)\n", dir.c_str(), dir.c_str());
    data::MnistDataset test = data::MnistDataset::test(data_dir);
    for (size_t index : indices) {
      auto item = test.get(index);
      if (!item) throw Error("guide_infer: the test split has no image " + std::to_string(index));
      const int64_t predicted = predict(model, *item, device);
      std::printf("test image %5zu: predicted %d (%s), expected %d (%s)\n", index,
                  static_cast<int>(predicted), kClassNames[predicted], item->label,
                  kClassNames[item->label]);
    }
    const double accuracy = test_accuracy(model, test, device);
    std::printf("test accuracy: %.2f%% of %zu images\n", accuracy, test.len());
    if (accuracy < min_accuracy) {
      std::fprintf(stderr, "error: test accuracy %.2f%% is below --min-accuracy %.2f%%\n", accuracy,
                   min_accuracy);
      return 1;
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
