// Scatter-add through the sorted form (kernels/scatter: the index argsorted, the target's run
// found by binary search) on the test device, against plain loops over the same host data: an
// embedding's gradient over a large table (the index an expand of token ids), a general index,
// duplicates, ids at both ends of the table, ids that never occur, and out-of-range ids.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::host_uniform;

// ids with repeats, both ends of [0, rows) and gaps.
std::vector<int32_t> token_ids(int64_t n, int64_t rows) {
  std::vector<int32_t> ids;
  for (int64_t i = 0; i < n; ++i) ids.push_back(static_cast<int32_t>((i * 37 + i / 3) % rows));
  ids[0] = static_cast<int32_t>(rows - 1);
  ids[n / 2] = 0;
  ids[n - 1] = ids[1];  // a repeat far from its twin
  return ids;
}

// out = x, then out[index[i][c]][c] += values[i][c] in order of i (PyTorch's scatter_add along 0).
std::vector<double> scatter_rows(std::vector<double> x, const std::vector<int32_t>& index,
                                 const std::vector<double>& values, int64_t n, int64_t cols) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < cols; ++c) x[index[i * cols + c] * cols + c] += values[i * cols + c];
  return x;
}

void expect_values(const TensorData& got, const std::vector<double>& want) {
  std::vector<double> g = got.to_vec<double>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(g[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << "element " << i;
  }
}

TEST(ScatterSorted, EmbeddingGradientMatchesLoops) {
  EMBER_REQUIRE_GPU_DEVICE();
  const Device dev = testing::gpu_device();
  const int64_t rows = 2000, cols = 24, n = 150;  // scan: 7.2M steps, sorting pays
  const std::vector<int32_t> ids = token_ids(n, rows);
  TensorData table_data = host_uniform({rows, cols}, 71), weight_data = host_uniform({n, cols}, 72);
  for (bool fused : {true, false}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    FusionGuard guard(fused);
    auto table = Tensor<2>::from_data(table_data, dev).require_grad();
    auto idx = Tensor<1, Int>::from_data(TensorData(ids), dev);
    auto w = Tensor<2>::from_data(weight_data, dev);
    auto y = table.select(0, idx);  // an embedding lookup
    Gradients g = (y * w).sum().backward();
    // d/dtable: w's rows added at their ids.
    std::vector<int32_t> expanded;
    for (int32_t id : ids)
      for (int64_t c = 0; c < cols; ++c) expanded.push_back(id);
    expect_values(table.grad(g).value().to_data(),
                  scatter_rows(std::vector<double>(rows * cols, 0.0), expanded,
                               weight_data.to_vec<double>(), n, cols));
  }
}

TEST(ScatterSorted, GeneralIndexMatchesLoopsAndSorts) {
  EMBER_REQUIRE_GPU_DEVICE();
  const Device dev = testing::gpu_device();
  const int64_t rows = 40000, cols = 3, n = 40;
  std::vector<int32_t> index;  // each column its own ids, repeats included
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < cols; ++c)
      index.push_back(static_cast<int32_t>((i * (c + 7) * 53 + c) % rows));
  index[0] = static_cast<int32_t>(rows - 1);
  index[cols * (n - 1) + 2] = index[2];
  TensorData x_data = host_uniform({rows, cols}, 73), v_data = host_uniform({n, cols}, 74);
  const std::vector<double> want =
      scatter_rows(x_data.to_vec<double>(), index, v_data.to_vec<double>(), n, cols);
  auto x = Tensor<2>::from_data(x_data, dev);
  auto idx = Tensor<2, Int>::from_data(TensorData(index, Shape{n, cols}), dev);
  auto v = Tensor<2>::from_data(v_data, dev);
  sync(dev);
  reset_stats(dev);
  auto out = x.scatter(0, idx, v);
  expect_values(out.to_data(), want);
  // The scan would be one kernel; the sorted form adds the argsort and the gathers (rows * n
  // reads of the index per column against n * n to sort it).
  EXPECT_GE(stats(dev).kernels_launched, 3);
}

// Along axis 1 of a 3-D target with 64-bit ids, the index narrower than the target in dim 2
// (those target elements keep their values).
TEST(ScatterSorted, MiddleAxisInt64AndNarrowIndex) {
  EMBER_REQUIRE_GPU_DEVICE();
  const Device dev = testing::gpu_device();
  const int64_t a = 2, rows = 30000, c = 5, n = 50, ic = 3;
  std::vector<int64_t> index;
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k < ic; ++k) index.push_back((j * 7919 + k * 31 + i) % rows);
  TensorData x_data = host_uniform({a, rows, c}, 75), v_data = host_uniform({a, n, ic}, 76);
  std::vector<double> want = x_data.to_vec<double>();
  const std::vector<double> vals = v_data.to_vec<double>();
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k < ic; ++k) {
        const int64_t at = (i * n + j) * ic + k;
        want[(i * rows + index[at]) * c + k] += vals[at];
      }
  auto x = Tensor<3>::from_data(x_data, dev);
  auto idx = Tensor<3, Int>::from_data(TensorData(index, Shape{a, n, ic}), dev);
  auto v = Tensor<3>::from_data(v_data, dev);
  expect_values(x.scatter(1, idx, v).to_data(), want);
}

TEST(ScatterSorted, OutOfRangeIdsRaiseAndTheProgramGoesOn) {
  EMBER_REQUIRE_GPU_DEVICE();
  const Device dev = testing::gpu_device();
  const int64_t rows = 10000, cols = 8, n = 64;
  for (int32_t bad : {-3, 10000, 99999}) {
    std::vector<int32_t> ids = token_ids(n, rows);
    ids[n / 3] = bad;
    std::vector<int32_t> index;
    for (int32_t id : ids)
      for (int64_t c = 0; c < cols; ++c) index.push_back(id);
    auto x = Tensor<2>::zeros({rows, cols}, dev);
    auto idx = Tensor<2, Int>::from_data(TensorData(index, Shape{n, cols}), dev);
    auto v = Tensor<2>::ones({n, cols}, dev);
    EXPECT_THROW(x.scatter(0, idx, v).to_data(), Error) << "id " << bad;
  }
  auto ok = Tensor<2>::zeros({rows, cols}, dev)
                .scatter(0, Tensor<2, Int>::zeros({n, cols}, dev), Tensor<2>::ones({n, cols}, dev));
  EXPECT_EQ(ok.to_data().to_vec<double>()[0], static_cast<double>(n));
}

}  // namespace
}  // namespace ember
