// The conv family's SIMT block through the autotune cache on the GPU device: every block a
// tuning may pick computes the same convolution (forced through a stored winner, in cached
// mode); with EMBER_AUTOTUNE=on a new key is tuned and stored with its candidates.
#include <cstdlib>
#include <string>

#include "autotune/store.h"
#include "frontend/detail/stream.h"
#include "kernels/conv/tuning.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

class AutotuneConv : public testing::AutotuneTest {};

// A 3x3 convolution of `channels` into 16 over 9x7 pixels of `batch` samples: M = batch * 63
// output pixels, N = 16 output channels, K = channels * 9.
std::vector<RawTensor> conv_program(const Device& dev, int64_t batch, int64_t channels) {
  auto x = Tensor<4>::from_data(testing::host_uniform({batch, channels, 9, 7}, 71), dev);
  auto w = Tensor<4>::from_data(testing::host_uniform({16, channels, 3, 3}, 72), dev);
  return {module::conv2d(x, w, std::nullopt, {{1, 1}, {1, 1}}).raw()};
}

std::string key(int64_t batch, int64_t channels) {
  jit::ConvShape s{1, batch * 63, 16, channels * 9, DType::F32};
  return jit::conv_tune_key(s, detail::backend_for(testing::gpu_device())).to_string();
}

// Each block is the stored winner of a problem of its own (keys anchor sizes to powers of two,
// and a process reads a key's winner once), so every block runs.
TEST_F(AutotuneConv, EveryBlockComputesTheSameConvolution) {
  EMBER_REQUIRE_GPU_DEVICE();
  setenv("EMBER_AUTOTUNE", "cached", 1);
  int i = 0;
  for (int rm : {1, 2, 4, 8}) {
    for (int rn : {1, 2, 4, 8}) {
      const int64_t channels = int64_t{1} << (i % 8), batch = i < 8 ? 1 : 3;
      ++i;
      std::string block = "block=" + std::to_string(rm) + "x" + std::to_string(rn);
      SCOPED_TRACE(block);
      testing::store_winner(key(batch, channels), "conv", block);
      testing::expect_same([&](const Device& dev) { return conv_program(dev, batch, channels); },
                           testing::gpu_device(), 1e-4, 1e-4);
    }
  }
}

TEST_F(AutotuneConv, OnTunesANewKeyAndStoresItsCandidates) {
  EMBER_REQUIRE_GPU_DEVICE();
  EMBER_TUNE_ON_TEST_DEVICE();
  testing::expect_same([](const Device& dev) { return conv_program(dev, 5, 24); },
                       testing::gpu_device(), 1e-4, 1e-4);
  auto e = autotune::process_store().lookup(key(5, 24));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->family, "conv");
  EXPECT_GE(e->candidates.size(), 4u);
  EXPECT_EQ(e->winner.rfind("block=", 0), 0u) << e->winner;
}

}  // namespace
}  // namespace ember
