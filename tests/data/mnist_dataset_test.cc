// MnistDataset and MnistBatcher: items and normalised tensors against plain loops over a small
// in-memory split, batches built on worker threads, and the real Fashion-MNIST split of the
// Debian package through the loader (skipped only where that directory is missing).
#include "data/mnist_dataset.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "data/dataloader.h"
#include "data/mnist_batcher.h"
#include "tests/data/test_util.h"

namespace ember::data {
namespace {

// n images whose pixel p of image i is (i * 31 + p) % 256, label i % 10.
MnistSplit fake_split(int64_t n) {
  MnistSplit s;
  s.images.dims = {n, kMnistSide, kMnistSide};
  s.labels.dims = {n};
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < kMnistPixels; ++p) s.images.data.push_back((i * 31 + p) % 256);
    s.labels.data.push_back(static_cast<uint8_t>(i % 10));
  }
  return s;
}

TEST(MnistDataset, ItemsAreTheSplitsRows) {
  MnistDataset d(fake_split(7));
  ASSERT_EQ(d.len(), 7u);
  std::optional<MnistItem> item = d.get(5);
  ASSERT_TRUE(item);
  EXPECT_EQ(item->label, 5);
  for (int64_t p = 0; p < kMnistPixels; ++p) ASSERT_EQ(item->image[p], (5 * 31 + p) % 256) << p;
  EXPECT_FALSE(d.get(7));
}

TEST(MnistBatcher, NormalisesAndStacks) {
  MnistDataset d(fake_split(3));
  MnistBatcher batcher(0.5f, 0.25f);
  MnistBatch b = batcher.batch({*d.get(2), *d.get(0)}, testing::dev());
  EXPECT_EQ(b.images.shape(), (Shape{2, 28, 28}));
  std::vector<float> px = b.images.to_data().to_vec<float>();
  std::vector<int64_t> labels = b.targets.to_data().to_vec<int64_t>();
  EXPECT_EQ(labels, (std::vector<int64_t>{2, 0}));
  const int64_t rows[] = {2, 0};
  for (int i = 0; i < 2; ++i) {
    for (int64_t p = 0; p < kMnistPixels; ++p) {
      float expected = (static_cast<float>((rows[i] * 31 + p) % 256) / 255.0f - 0.5f) / 0.25f;
      ASSERT_FLOAT_EQ(px[i * kMnistPixels + p], expected) << i << " " << p;
    }
  }
}

TEST(MnistBatcher, TensorsBuiltOnWorkersMatchTheSynchronousLoader) {
  auto dataset = std::make_shared<MnistDataset>(fake_split(50));
  auto batcher = std::make_shared<MnistBatcher>();
  auto make = [&](size_t workers) {
    return DataLoaderBuilder<MnistItem, MnistBatch>(batcher)
        .batch_size(8)
        .shuffle(3)
        .num_workers(workers)
        .build(dataset, testing::dev());
  };
  auto here = make(0)->iter(), threaded = make(3)->iter();
  int batches = 0;
  while (auto a = here->next()) {
    auto b = threaded->next();
    ASSERT_TRUE(b);
    EXPECT_EQ(a->images.to_data().to_vec<float>(), b->images.to_data().to_vec<float>());
    EXPECT_EQ(a->targets.to_data().to_vec<int64_t>(), b->targets.to_data().to_vec<int64_t>());
    ++batches;
  }
  EXPECT_FALSE(threaded->next());
  EXPECT_EQ(batches, 7);
}

TEST(MnistDataset, FashionMnistThroughTheLoader) {
  const std::string dir = default_fashion_mnist_dir();
  if (!std::filesystem::exists(dir)) {
    // CI installs the data (scripts/test.sh sets EMBER_REQUIRE_DATA): missing there is a failure.
    if (std::getenv("EMBER_REQUIRE_DATA")) FAIL() << dir << " missing (dataset-fashion-mnist)";
    GTEST_SKIP() << dir << " is missing";
  }
  auto test = std::make_shared<MnistDataset>(MnistDataset::test(dir));
  ASSERT_EQ(test->len(), 10000u);
  ASSERT_EQ(MnistDataset::train(dir).len(), 60000u);
  auto loader = DataLoaderBuilder<MnistItem, MnistBatch>(std::make_shared<MnistBatcher>())
                    .batch_size(512)
                    .num_workers(2)
                    .build(test, testing::dev());
  EXPECT_EQ(loader->num_batches(), 20u);
  // Every label once per epoch: Fashion-MNIST's test split has 1000 images of each class.
  std::vector<int64_t> per_class(10);
  auto it = loader->iter();
  while (auto b = it->next()) {
    for (int64_t label : b->targets.to_data().to_vec<int64_t>()) ++per_class.at(label);
  }
  EXPECT_EQ(per_class, std::vector<int64_t>(10, 1000));
}

}  // namespace
}  // namespace ember::data
