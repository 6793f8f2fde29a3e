// Many short or strided rows run a thread per row (kernels/row/tuning.h, RowChoice::thread_rows):
// the same values as the CPU reference for every kind of row program (reductions with their
// epilogues, arg-reductions, row outputs and whole-row outputs), fused and unfused, and the
// plan says which variant ran.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "frontend/activation.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

TEST(ThreadRows, StridedAndShortRowsMatchTheCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    // Bias-gradient shaped: rows of 8 along the outer axis, 4096 of them per slice.
    auto x = Tensor<3>::from_data(testing::host_uniform({8, 64, 64}, 91), dev);
    // Classification-shaped: 2048 rows of 10 classes.
    auto s = Tensor<2>::from_data(testing::host_uniform({2048, 10}, 92), dev);
    // Batch-norm shaped: per-channel statistics over a strided batch axis.
    auto y = Tensor<4>::from_data(testing::host_uniform({6, 4, 16, 16}, 93), dev);
    // Longer strided rows, enough of them for a thread each: 16384 rows of 40.
    auto z = Tensor<2>::from_data(testing::host_uniform({40, 16384}, 95), dev);
    auto mean = y.mean_dim(0);
    auto centred = y - mean;
    return {x.sum_dim(0).raw(),
            x.max_dim(0).raw(),
            x.argmin(0).raw(),
            activation::softmax(x, 0).raw(),
            activation::softmax(s, 1).raw(),
            activation::log_softmax(s, 1).raw(),
            s.argmax(1).raw(),
            (centred * centred).mean_dim(0).raw(),
            (s.exp().sum_dim(1).log() + s.max_dim(1)).raw(),
            z.sum_dim(0).raw(),
            activation::log_softmax(z, 0).raw()};
  });
}

// Reductions over all rows of a value per row join the row kernel (KernelPlan::totals): a
// loss's mean, a maximum over rows, a value of the total's shape that reads it, and rows of one
// element with a reduction over another axis (the fuzz's case), against the CPU reference.
TEST(RowTotals, MatchTheCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto s = Tensor<2>::from_data(testing::host_uniform({300, 10}, 96), dev);
    auto lse = s.exp().sum_dim(1).log();  // [300, 1]
    auto per_row = (lse - s.max_dim(1)).reshape({300});
    auto column = Tensor<4>::from_data(testing::host_uniform({1, 1, 5, 1}, 97), dev);
    auto soft = activation::softmax(column, 3);  // rows of one element
    return {per_row.mean().raw(), (per_row.max() * 2.0 + 1.0).raw(), lse.sum().raw(),
            activation::softmax(soft, 2).raw(), soft.max_dim(2).raw()};
  });
}

TEST(ThreadRows, ThePlanNamesTheVariant) {
  EMBER_REQUIRE_GPU_DEVICE();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ember_thread_rows_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const char* tuning = std::getenv("EMBER_AUTOTUNE");
  std::string saved = tuning ? tuning : "";
  setenv("EMBER_AUTOTUNE", "off", 1);  // the heuristic's choice, whatever a tuner would find
  setenv("EMBER_DUMP", "plan", 1);
  setenv("EMBER_DUMP_DIR", dir.c_str(), 1);
  // A shape no other test uses, so this process plans it afresh (dumps are of new plans).
  auto x = Tensor<2>::from_data(testing::host_uniform({13, 4096}, 94), testing::gpu_device());
  TensorData got = x.sum_dim(0).to_data();
  unsetenv("EMBER_DUMP");
  unsetenv("EMBER_DUMP_DIR");
  if (tuning) {
    setenv("EMBER_AUTOTUNE", saved.c_str(), 1);
  } else {
    unsetenv("EMBER_AUTOTUNE");
  }
  std::string text;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    text += std::string((std::istreambuf_iterator<char>(in)), {});
  }
  fs::remove_all(dir);
  EXPECT_NE(text.find("variant thread_rows,workgroup=128"), std::string::npos) << text;
  // And the column sums themselves, by plain loops.
  std::vector<double> host = testing::host_uniform({13, 4096}, 94).to_vec<double>();
  std::vector<double> want(4096, 0.0);
  for (int r = 0; r < 13; ++r)
    for (int c = 0; c < 4096; ++c) want[c] += host[r * 4096 + c];
  std::vector<double> have = got.to_vec<double>();
  ASSERT_EQ(have.size(), want.size());
  for (int c = 0; c < 4096; ++c) ASSERT_NEAR(have[c], want[c], 1e-4) << "column " << c;
}

}  // namespace
}  // namespace ember
