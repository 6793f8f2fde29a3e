// Recurrent layers against their equations written here as host loops (one LSTM and GRU step,
// both GRU reset placements, the Elman cell with relu), time-major input, reversed scans,
// gradients against central differences, the same ops recorded for every step (so the engine's
// caches serve every step after the first), config defaults and misuse.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>

#include "frontend/stats.h"
#include "tests/nn/seq_grads.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::expect_error;
using testing::expect_near_all;
using testing::expect_tensor;
using testing::from_host;
using testing::host;

std::vector<double> random_values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (auto& x : v) x = u(gen);
  return v;
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// The module's gate weights as host vectors, with random values put in.
template <Module M>
M randomized(const M& m, uint32_t seed) {
  return map_params(m, [&](const std::string&, const auto& p) {
    using T = std::decay_t<decltype(p.val())>;
    return p.with_value(from_host<T::kRank>(random_values(p.num_elements(), seed++), p.shape()));
  });
}

struct HostGates {
  std::vector<double> wih, whh, bih, bhh;
  int64_t d_in, h, gates;
  explicit HostGates(const GateWeights& g)
      : wih(host(g.weight_ih.val())),
        whh(host(g.weight_hh.val())),
        bih(host(g.bias_ih->val())),
        bhh(host(g.bias_hh->val())),
        d_in(g.d_input()),
        h(g.d_hidden()),
        gates(g.weight_ih.shape()[1] / g.d_hidden()) {}
  // Gate k's column j of x W_ih + b_ih (input) or h W_hh + b_hh (hidden), for batch row b.
  double in(const std::vector<double>& x, int64_t b, int64_t k, int64_t j) const {
    double s = bih[k * h + j];
    for (int64_t i = 0; i < d_in; ++i) s += x[b * d_in + i] * wih[i * gates * h + k * h + j];
    return s;
  }
  double hid(const std::vector<double>& hv, int64_t b, int64_t k, int64_t j) const {
    double s = bhh[k * h + j];
    for (int64_t i = 0; i < h; ++i) s += hv[b * h + i] * whh[i * gates * h + k * h + j];
    return s;
  }
};

TEST(LstmCell, MatchesEquations) {
  Lstm lstm = randomized(LstmConfig(3, 4, true).init(dev()), 1);
  HostGates g(lstm.gates);
  auto x = random_values(2 * 3, 20), h0 = random_values(2 * 4, 21), c0 = random_values(2 * 4, 22);
  std::vector<double> want_h(8), want_c(8);
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t j = 0; j < 4; ++j) {
      auto pre = [&](int64_t k) { return g.in(x, b, k, j) + g.hid(h0, b, k, j); };
      double i = sigmoid(pre(0)), f = sigmoid(pre(1)), gg = std::tanh(pre(2)), o = sigmoid(pre(3));
      want_c[b * 4 + j] = f * c0[b * 4 + j] + i * gg;
      want_h[b * 4 + j] = o * std::tanh(want_c[b * 4 + j]);
    }
  }
  auto [y, s] =
      lstm.forward(from_host<3>(x, Shape{2, 1, 3}),
                   LstmState{from_host<2>(c0, Shape{2, 4}), from_host<2>(h0, Shape{2, 4})});
  expect_tensor(y, Shape{2, 1, 4}, want_h, 1e-5);
  expect_near_all(host(s.cell), want_c, 1e-5);
}

TEST(GruCell, MatchesEquationsResetAfterAndBefore) {
  for (bool reset_after : {true, false}) {
    SCOPED_TRACE(reset_after);
    Gru gru = randomized(GruConfig(3, 4, true).with_reset_after(reset_after).init(dev()), 2);
    HostGates g(gru.gates);
    auto x = random_values(2 * 3, 23), h0 = random_values(2 * 4, 24);
    std::vector<double> want(8);
    for (int64_t b = 0; b < 2; ++b) {
      std::vector<double> r(4), z(4), rh(8, 0.0);
      for (int64_t j = 0; j < 4; ++j) {
        r[j] = sigmoid(g.in(x, b, 0, j) + g.hid(h0, b, 0, j));
        z[j] = sigmoid(g.in(x, b, 1, j) + g.hid(h0, b, 1, j));
        rh[b * 4 + j] = r[j] * h0[b * 4 + j];
      }
      for (int64_t j = 0; j < 4; ++j) {
        double hn = reset_after ? r[j] * g.hid(h0, b, 2, j) : g.hid(rh, b, 2, j);
        double n = std::tanh(g.in(x, b, 2, j) + hn);
        want[b * 4 + j] = (1 - z[j]) * n + z[j] * h0[b * 4 + j];
      }
    }
    auto [y, h] = gru.forward(from_host<3>(x, Shape{2, 1, 3}), from_host<2>(h0, Shape{2, 4}));
    expect_tensor(y, Shape{2, 1, 4}, want, 1e-5);
    expect_near_all(host(h), want, 1e-5);
  }
}

TEST(RnnCell, ReluMatchesEquation) {
  Rnn rnn = randomized(RnnConfig(3, 4, true).with_nonlinearity("relu").init(dev()), 3);
  HostGates g(rnn.gates);
  auto x = random_values(2 * 3, 25), h0 = random_values(2 * 4, 26);
  std::vector<double> want(8);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < 4; ++j)
      want[b * 4 + j] = std::max(0.0, g.in(x, b, 0, j) + g.hid(h0, b, 0, j));
  auto [y, h] = rnn.forward(from_host<3>(x, Shape{2, 1, 3}), from_host<2>(h0, Shape{2, 4}));
  expect_tensor(y, Shape{2, 1, 4}, want, 1e-5);
}

// A sequence is the cell applied step by step; time-major input gives the transposed result;
// a reversed scan is the forward scan of the flipped sequence, flipped back.
TEST(Lstm, SequenceIsRepeatedCellAndLayoutsAgree) {
  Lstm lstm = randomized(LstmConfig(3, 4, true).init(dev()), 4);
  auto x = from_host<3>(random_values(2 * 5 * 3, 27), Shape{2, 5, 3});
  auto [y, s] = lstm.forward(x);
  std::optional<LstmState> st;
  for (int64_t t = 0; t < 5; ++t) {
    auto [yt, next] = lstm.forward(x.narrow(1, t, 1), st);
    expect_near_all(host(yt), host(y.narrow(1, t, 1)), 1e-5);
    st = next;
  }
  expect_near_all(host(st->hidden), host(s.hidden), 1e-5);
  Lstm time_major = lstm;
  time_major.batch_first = false;
  auto [yt, st2] = time_major.forward(x.swap_dims(0, 1));
  expect_near_all(host(yt.swap_dims(0, 1)), host(y), 1e-5);
  auto [yr, sr] = lstm.forward(x, std::nullopt, true);
  auto [yf, sf] = lstm.forward(x.flip({1}));
  expect_near_all(host(yr), host(yf.flip({1})), 1e-5);
}

TEST(Lstm, GradientsMatchCentralDifferences) {
  Lstm lstm = LstmConfig(3, 2, true).init(dev());
  auto x = from_host<3>(random_values(2 * 2 * 3, 28), Shape{2, 2, 3});
  testing::expect_grads_on_device<Lstm, 3>(
      lstm, x,
      [](const Lstm& m, const Tensor<3>& in) {
        auto [y, s] = m.forward(in);
        return (y * y).sum() + s.cell.sum();
      },
      1e-5);
}

TEST(Gru, GradientsMatchCentralDifferences) {
  // lavapipe's LLVM spends minutes compiling the fused GRU backward kernel (coroutine
  // splitting); the unfused Vulkan run and the CPU run check these gradients.
  const char* fusion = std::getenv("EMBER_FUSION");
  if (dev().type() == DeviceType::Vulkan && !(fusion && std::string(fusion) == "0")) {
    GTEST_SKIP() << "fused GRU backward: minutes of shader compilation on lavapipe";
  }
  Gru gru = GruConfig(3, 2, true).init(dev());
  auto x = from_host<3>(random_values(2 * 2 * 3, 29), Shape{2, 2, 3});
  testing::expect_grads_on_device<Gru, 3>(
      gru, x,
      [](const Gru& m, const Tensor<3>& in) {
        auto [y, h] = m.forward(in);
        return (y * y).sum();
      },
      1e-5);
}

// The recurrence is one recorded op whatever the sequence's length, so the recorded graph does not
// grow with time steps; where the fused kernel runs it (CUDA), neither do the kernels launched.
TEST(Lstm, RecordedOpsDoNotGrowWithTheSequence) {
  Lstm lstm = LstmConfig(4, 8, true).init(dev());
  auto stats_for = [&](int64_t seq) {
    auto x = from_host<3>(random_values(2 * seq * 4, 30), Shape{2, seq, 4});
    host(x);
    reset_stats(dev());
    auto [y, s] = lstm.forward(x);
    host(y);
    return stats(dev());
  };
  // Vulkan runs the composite, a step at a time: lavapipe compiles 40 fused steps for minutes.
  const int64_t longest = dev().type() == DeviceType::Vulkan ? 8 : 40;
  stats_for(4);
  Stats s4 = stats_for(4), s12 = stats_for(12), s40 = stats_for(longest);
  EXPECT_GT(s4.ops_recorded, 0);
  EXPECT_EQ(s12.ops_recorded, s4.ops_recorded);
  EXPECT_EQ(s40.ops_recorded, s4.ops_recorded);
  if (dev().type() == DeviceType::Cuda) {
    EXPECT_EQ(s40.kernels_launched, s4.kernels_launched) << s40.to_string();
  }
}

TEST(Recurrent, ConfigDefaultsAndMisuse) {
  LstmConfig lc(3, 4, true);
  EXPECT_TRUE(lc.batch_first);
  EXPECT_EQ(lc.initializer, Initializer::xavier_normal(1.0));
  EXPECT_TRUE(GruConfig(3, 4, true).reset_after);
  EXPECT_EQ(LstmConfig::from_json(lc.with_bias(false).to_json()), lc.with_bias(false));
  EXPECT_EQ(LstmConfig(3, 4, false).init(dev()).num_params(), 3 * 16 + 4 * 16);
  EXPECT_EQ(GruConfig(3, 4, true).init(dev()).num_params(), 3 * 12 + 4 * 12 + 2 * 12);
  EXPECT_EQ(BiLstmConfig(3, 4, true).init(dev()).num_params(), 2 * (3 * 16 + 4 * 16 + 2 * 16));
  Lstm lstm = lc.init(dev());
  expect_error(
      [&] {
        lstm.forward(Tensor<3>::zeros(Shape{2, 5, 6}, dev()));
      },
      {"Lstm", "f32[2, 5, 6]"});
  expect_error(
      [&] {
        lstm.forward(
            Tensor<3>::zeros(Shape{2, 5, 3}, dev()),
            LstmState{Tensor<2>::zeros(Shape{3, 4}, dev()), Tensor<2>::zeros(Shape{3, 4}, dev())});
      },
      {"Lstm", "state", "[3, 4]"});
  expect_error([] { RnnConfig(3, 4, true).with_nonlinearity("gelu").init(dev()); },
               {"RnnConfig", "nonlinearity"});
}

}  // namespace
}  // namespace ember::nn
