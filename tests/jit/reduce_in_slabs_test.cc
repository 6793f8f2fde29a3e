// The CPU reference path reduces large pointwise expressions slab by slab
// (jit/exec/reduce_in_slabs.h): the values against plain loops, and the memory it holds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::host_uniform;

constexpr int64_t kN = 2048;  // 4 Mi elements (16 MiB in f32): large enough to be cut

std::vector<double> values(const TensorData& d) { return d.to_vec<double>(); }

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << "element " << i;
  }
}

TEST(ReduceInSlabs, BroadcastProductSummedEitherWayIsNeverStored) {
  Device cpu = Device::cpu_reference();
  auto a = Tensor<2>::from_data(host_uniform({kN, 1}, 1), cpu);
  auto b = Tensor<2>::from_data(host_uniform({1, kN}, 2), cpu);
  sync(cpu);
  reset_stats(cpu);
  int64_t before = stats(cpu).bytes_in_use;
  auto rows = (a * b).sum_dim(1);
  auto cols = (a * b).sum_dim(0);
  sync(cpu);
  EXPECT_LT(stats(cpu).peak_bytes - before, kN * kN * 4 / 8) << "the product was stored";
  std::vector<double> av = values(host_uniform({kN, 1}, 1)), bv = values(host_uniform({1, kN}, 2));
  std::vector<double> want_rows(kN, 0.0), want_cols(kN, 0.0);
  for (int64_t i = 0; i < kN; ++i) {
    for (int64_t j = 0; j < kN; ++j) {
      want_rows[i] += av[i] * bv[j];
      want_cols[j] += av[i] * bv[j];
    }
  }
  expect_near_all(values(rows.to_data()), want_rows, 1e-4);
  expect_near_all(values(cols.to_data()), want_cols, 1e-4);
}

// A chain of pointwise ops with a stored full-size operand, reduced by max and argmax, in 3-D.
TEST(ReduceInSlabs, PointwiseChainWithStoredOperandMaxAndArgmax) {
  Device cpu = Device::cpu_reference();
  const int64_t d0 = 4, d1 = 1024, d2 = 1024;
  auto x = Tensor<3>::from_data(host_uniform({d0, d1, 1}, 3), cpu);
  auto y = Tensor<3>::from_data(host_uniform({1, 1, d2}, 4), cpu);
  auto z = Tensor<3>::from_data(host_uniform({d0, d1, d2}, 5), cpu);
  auto e = ((x - y).exp() * 0.5 + z).tanh();
  auto mx = e.max_dim(2);
  auto am = e.argmax(2);
  std::vector<double> xv = values(host_uniform({d0, d1, 1}, 3)),
                      yv = values(host_uniform({1, 1, d2}, 4)),
                      zv = values(host_uniform({d0, d1, d2}, 5));
  std::vector<double> want_max(d0 * d1), want_arg(d0 * d1);
  for (int64_t i = 0; i < d0 * d1; ++i) {
    double best = -std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < d2; ++k) {
      double v = std::tanh(std::exp(xv[i] - yv[k]) * 0.5 + zv[i * d2 + k]);
      if (v > best) {
        best = v;
        want_arg[i] = static_cast<double>(k);
      }
    }
    want_max[i] = best;
  }
  expect_near_all(values(mx.to_data()), want_max, 1e-5);
  // Ties within f32 rounding could pick another index: compare the values at the indices.
  std::vector<double> got_arg = values(am.to_data());
  for (int64_t i = 0; i < d0 * d1; ++i) {
    int64_t k = static_cast<int64_t>(got_arg[i]);
    ASSERT_GE(k, 0);
    ASSERT_LT(k, d2);
    double v = std::tanh(std::exp(xv[i] - yv[k]) * 0.5 + zv[i * d2 + k]);
    ASSERT_NEAR(v, want_max[i], 1e-5) << "row " << i;
  }
}

// A product the program keeps (an output of the flush) is stored once and reduced as stored.
TEST(ReduceInSlabs, HeldExpressionIsStoredAndReduced) {
  Device cpu = Device::cpu_reference();
  auto a = Tensor<2>::from_data(host_uniform({kN, 1}, 6), cpu);
  auto b = Tensor<2>::from_data(host_uniform({1, kN}, 7), cpu);
  auto p = a * b;
  auto s = p.sum_dim(1);
  std::vector<double> pv = values(p.to_data()), sv = values(s.to_data());
  std::vector<double> av = values(host_uniform({kN, 1}, 6)), bv = values(host_uniform({1, kN}, 7));
  for (int64_t i = 0; i < kN; i += 97) {
    double want = 0;
    for (int64_t j = 0; j < kN; ++j) {
      ASSERT_NEAR(pv[i * kN + j], av[i] * bv[j], 1e-6);
      want += av[i] * bv[j];
    }
    ASSERT_NEAR(sv[i], want, 1e-4 * (1 + std::abs(want)));
  }
}

// An error inside the expression (an out-of-range gather feeding it) fails the reduction's
// output with the gather's message, and the device stays usable.
TEST(ReduceInSlabs, ErrorInAnOperandFailsTheReduction) {
  Device cpu = Device::cpu_reference();
  auto table = Tensor<2>::from_data(host_uniform({4, kN}, 8), cpu);
  auto idx = Tensor<2, Int>::from_data(TensorData(std::vector<int64_t>{7}, Shape{1, 1}), cpu);
  auto bad = table.gather(0, idx.expand({kN, kN}));
  auto a = Tensor<2>::from_data(host_uniform({kN, 1}, 9), cpu);
  EXPECT_THROW((bad * a).sum_dim(1).to_data(), Error);
  auto ok = (a * a.transpose()).sum_dim(1).to_data();
  EXPECT_EQ(ok.shape(), (Shape{kN, 1}));
}

}  // namespace
}  // namespace ember
