// Data loader throughput, one JSON line per run (bench/dataloader_images.py alternates it with
// PyTorch's DataLoader on the same files and takes medians).
//
//   ember_data_bench write-images DIR [--count N]     N 64x64 JPEGs in DIR/<class>/ (10 classes)
//   ember_data_bench images DIR [--workers K] [--batch B]
//       one epoch of ImageFolderDataset + ImageClassificationBatcher over DIR, items/s
//   ember_data_bench fashion_mnist [--workers K] [--batch B] [--epochs E]
//       Fashion-MNIST's training split through MnistBatcher with no model, items/s and the mean
//       time per batch (what the loader adds to a training step that waits for it)
//
// Batches go to the CPU device (EMBER_DEVICE is not read: the loader's own cost is measured).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "data/dataloader.h"
#include "data/image.h"
#include "data/image_batcher.h"
#include "data/image_folder.h"
#include "data/mnist_batcher.h"
#include "data/mnist_dataset.h"
#include "data/random.h"
#include "ir/error.h"

using namespace ember;
using namespace ember::data;

namespace {

struct Args {
  std::string mode, dir;
  size_t count = 10000, workers = 1, batch = 64, epochs = 1;
};

Args parse(int argc, char** argv) {
  if (argc < 2) throw Error("usage: ember_data_bench write-images|images|fashion_mnist [DIR] ...");
  Args a;
  a.mode = argv[1];
  int i = 2;
  if (a.mode != "fashion_mnist") {
    if (argc < 3) throw Error("ember_data_bench " + a.mode + ": DIR missing");
    a.dir = argv[i++];
  }
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) throw Error("ember_data_bench: " + arg + " needs a value");
    size_t v = std::stoul(argv[++i]);
    if (arg == "--count") {
      a.count = v;
    } else if (arg == "--workers") {
      a.workers = v;
    } else if (arg == "--batch") {
      a.batch = v;
    } else if (arg == "--epochs") {
      a.epochs = v;
    } else {
      throw Error("ember_data_bench: unknown argument " + arg);
    }
  }
  return a;
}

// Smooth colour fields with a little noise: JPEGs of a realistic size (about 2 KB each).
void write_images(const Args& a) {
  SplitMix64 rng(1);
  for (size_t i = 0; i < a.count; ++i) {
    const std::filesystem::path dir =
        std::filesystem::path(a.dir) / ("class" + std::to_string(i % 10));
    std::filesystem::create_directories(dir);
    Image img{64, 64, 3, std::vector<uint8_t>(64 * 64 * 3)};
    const uint64_t base = rng.below(256);
    for (size_t p = 0; p < img.pixels.size(); ++p) {
      const size_t y = p / 192, x = (p / 3) % 64, c = p % 3;
      img.pixels[p] = static_cast<uint8_t>((base + 2 * y + 3 * x + 60 * c + rng.below(16)) % 256);
    }
    char name[32];
    std::snprintf(name, sizeof(name), "%06zu.jpg", i);
    write_jpeg((dir / name).string(), img, 90);
  }
  std::printf("{\"wrote\": %zu, \"dir\": \"%s\"}\n", a.count, a.dir.c_str());
}

template <class Item, class Batch>
double epoch_seconds(DataLoader<Batch>& loader, size_t& items) {
  auto t0 = std::chrono::steady_clock::now();
  auto it = loader.iter();
  while (std::optional<Batch> b = it->next()) {
  }
  items = it->progress().items_processed;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void images(const Args& a) {
  auto dataset =
      std::make_shared<ImageFolderDataset>(ImageFolderDataset::new_classification(a.dir));
  auto loader =
      DataLoaderBuilder<ImageDatasetItem, ImageBatch>(
          std::make_shared<ImageClassificationBatcher>(std::vector<float>{0.485f, 0.456f, 0.406f},
                                                       std::vector<float>{0.229f, 0.224f, 0.225f}))
          .batch_size(a.batch)
          .shuffle(0)
          .num_workers(a.workers)
          .build(dataset, Device::cpu());
  size_t items = 0;
  double s = epoch_seconds<ImageDatasetItem, ImageBatch>(*loader, items);
  std::printf(
      "{\"bench\": \"dataloader_images\", \"impl\": \"ember\", \"workers\": %zu, \"batch\": %zu, "
      "\"items\": %zu, \"seconds\": %.4f, \"items_per_s\": %.1f}\n",
      a.workers, a.batch, items, s, items / s);
}

void fashion_mnist(const Args& a) {
  auto dataset = std::make_shared<MnistDataset>(MnistDataset::train());
  auto loader = DataLoaderBuilder<MnistItem, MnistBatch>(std::make_shared<MnistBatcher>())
                    .batch_size(a.batch)
                    .shuffle(0)
                    .num_workers(a.workers)
                    .build(dataset, Device::cpu());
  for (size_t e = 0; e < a.epochs; ++e) {
    size_t items = 0;
    double s = epoch_seconds<MnistItem, MnistBatch>(*loader, items);
    std::printf(
        "{\"bench\": \"fashion_mnist\", \"impl\": \"ember\", \"workers\": %zu, \"batch\": %zu, "
        "\"epoch\": %zu, \"items\": %zu, \"seconds\": %.4f, \"items_per_s\": %.1f, "
        "\"us_per_batch\": %.1f}\n",
        a.workers, a.batch, e, items, s, items / s, 1e6 * s / loader->num_batches());
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args a = parse(argc, argv);
    if (a.mode == "write-images") {
      write_images(a);
    } else if (a.mode == "images") {
      images(a);
    } else if (a.mode == "fashion_mnist") {
      fashion_mnist(a);
    } else {
      throw Error("ember_data_bench: unknown mode " + a.mode);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
