// load_mnist_split on small fake directories (shape and label checks) and on the real
// Fashion-MNIST files of the Debian package, skipped only where that directory is missing.
#include "data/fashion_mnist.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "tests/data/test_util.h"

namespace ember::data {
namespace {

using testing::Bytes;
using testing::expect_error;
using testing::idx_bytes;
using testing::iota_bytes;
using testing::ScratchDir;

class FakeMnist : public ::testing::Test {
 protected:
  void write(const std::string& name, const std::vector<uint32_t>& dims, const Bytes& data) {
    testing::write_file(dir_.file(name), idx_bytes(0x08, dims, data), true);
  }
  void write_images(const std::string& split, std::vector<uint32_t> dims) {
    size_t n = 1;
    for (uint32_t d : dims) n *= d;
    write(split + "-images-idx3-ubyte.gz", dims, iota_bytes(n));
  }
  void write_labels(const std::string& split, const Bytes& labels) {
    write(split + "-labels-idx1-ubyte.gz", {static_cast<uint32_t>(labels.size())}, labels);
  }
  std::string dir() const { return dir_.path().string(); }

  ScratchDir dir_;
};

TEST_F(FakeMnist, LoadsBothSplits) {
  write_images("train", {3, 28, 28});
  write_labels("train", {0, 9, 4});
  write_images("t10k", {2, 28, 28});
  write_labels("t10k", {5, 5});
  MnistSplit train = load_mnist_split(dir(), true);
  EXPECT_EQ(train.images.dims, (std::vector<int64_t>{3, 28, 28}));
  EXPECT_EQ(train.images.data, iota_bytes(3 * 28 * 28));
  EXPECT_EQ(train.labels.data, (Bytes{0, 9, 4}));
  MnistSplit test = load_mnist_split(dir(), false);
  EXPECT_EQ(test.images.dims, (std::vector<int64_t>{2, 28, 28}));
  EXPECT_EQ(test.labels.data, (Bytes{5, 5}));
}

TEST_F(FakeMnist, MissingLabels) {
  write_images("t10k", {1, 28, 28});
  expect_error([&] { load_mnist_split(dir(), false); },
               {dir_.file("t10k-labels-idx1-ubyte.gz"), "cannot open"});
}

TEST_F(FakeMnist, ImagesNotRank3) {
  write_images("train", {2, 784});
  write_labels("train", {1, 2});
  expect_error([&] { load_mnist_split(dir(), true); },
               {dir_.file("train-images-idx3-ubyte.gz"), "[2, 784]", "expected [N, 28, 28]"});
}

TEST_F(FakeMnist, ImagesNot28By28) {
  write_images("train", {2, 28, 27});
  write_labels("train", {1, 2});
  expect_error([&] { load_mnist_split(dir(), true); }, {"[2, 28, 27]", "expected [N, 28, 28]"});
}

TEST_F(FakeMnist, CountMismatch) {
  write_images("train", {3, 28, 28});
  write_labels("train", {1, 2});
  expect_error([&] { load_mnist_split(dir(), true); },
               {dir_.file("train-labels-idx1-ubyte.gz"), "[2]", "expected [3]"});
}

TEST_F(FakeMnist, LabelOutOfRange) {
  write_images("train", {3, 28, 28});
  write_labels("train", {1, 10, 2});
  expect_error([&] { load_mnist_split(dir(), true); },
               {dir_.file("train-labels-idx1-ubyte.gz"), "label 10 at index 1"});
}

// Sets or clears an environment variable for one test and restores it afterwards, since all
// tests of the binary may share one process.
class EnvGuard {
 public:
  explicit EnvGuard(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v;
  }
  ~EnvGuard() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(FashionMnistDir, EnvironmentOverridesDebianPath) {
  EnvGuard guard("EMBER_FASHION_MNIST_DIR");
  unsetenv("EMBER_FASHION_MNIST_DIR");
  EXPECT_EQ(default_fashion_mnist_dir(), "/usr/share/datasets/fashion-mnist");
  setenv("EMBER_FASHION_MNIST_DIR", "", 1);
  EXPECT_EQ(default_fashion_mnist_dir(), kFashionMnistDebianDir);
  setenv("EMBER_FASHION_MNIST_DIR", "/tmp/fmnist", 1);
  EXPECT_EQ(default_fashion_mnist_dir(), "/tmp/fmnist");
}

// The real data set: every split has exactly the same number of images per class.
void check_real_split(bool train, int64_t n) {
  const std::string dir = default_fashion_mnist_dir();
  // CI installs the data (scripts/test.sh sets EMBER_REQUIRE_DATA): missing there is a failure,
  // not a skip that would pass unnoticed.
  if (!std::filesystem::is_directory(dir)) {
    if (std::getenv("EMBER_REQUIRE_DATA")) FAIL() << dir << " missing (dataset-fashion-mnist)";
    GTEST_SKIP() << dir << " missing (dataset-fashion-mnist)";
  }
  MnistSplit s = load_mnist_split(dir, train);
  EXPECT_EQ(s.images.dims, (std::vector<int64_t>{n, 28, 28}));
  EXPECT_EQ(s.images.data.size(), static_cast<size_t>(n * 28 * 28));
  EXPECT_EQ(s.labels.dims, (std::vector<int64_t>{n}));
  std::array<int64_t, kMnistClasses> counts{};
  for (uint8_t l : s.labels.data) {
    ASSERT_LT(l, kMnistClasses);
    ++counts[l];
  }
  for (int c = 0; c < kMnistClasses; ++c) EXPECT_EQ(counts[c], n / kMnistClasses) << "class " << c;
  uint8_t max_pixel = 0;
  for (uint8_t p : s.images.data) max_pixel = std::max(max_pixel, p);
  EXPECT_EQ(max_pixel, 255);  // real pixels, not a zero-filled buffer
}

TEST(FashionMnistReal, TestSplit) { check_real_split(false, 10000); }
TEST(FashionMnistReal, TrainSplit) { check_real_split(true, 60000); }

}  // namespace
}  // namespace ember::data
