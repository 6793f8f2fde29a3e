// Transformer stacks and position encodings: a stack is its layers applied in turn; the
// decoder's incremental cache reproduces the full causal pass; dropout is off in valid(); the
// feed-forward block against its formula; PositionalEncoding and RotaryEncoding against their
// closed forms (with a start offset, norms kept); gradients; config checks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

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

TEST(TransformerEncoder, StackAppliesLayersInTurn) {
  TransformerEncoder enc = TransformerEncoderConfig(8, 16, 2, 2).with_dropout(0).init(dev());
  ASSERT_EQ(enc.layers.size(), 2u);
  auto x = from_host<3>(random_values(2 * 3 * 8, 1), Shape{2, 3, 8});
  TransformerEncoderInput in{x};
  in.causal = true;
  auto y = enc.forward(in);
  in.tensor = enc.layers[1].forward({enc.layers[0].forward(in), std::nullopt, std::nullopt, true});
  expect_tensor(y, Shape{2, 3, 8}, host(in.tensor), 1e-6);
}

// In training, dropout makes two passes differ; valid() turns every dropout off, so two passes
// agree and equal the dropout-free model.
TEST(TransformerEncoder, ValidTurnsDropoutOff) {
  TransformerEncoder enc = TransformerEncoderConfig(8, 16, 2, 1).with_dropout(0.5).init(dev());
  auto x = from_host<3>(random_values(2 * 3 * 8, 2), Shape{2, 3, 8});
  auto a = host(enc.forward({x})), b = host(enc.forward({x}));
  EXPECT_NE(a, b);
  TransformerEncoder v = enc.valid();
  TransformerEncoder no_dropout = enc;
  no_dropout.layers[0].dropout.prob = 0;
  no_dropout.layers[0].mha.dropout.prob = 0;
  no_dropout.layers[0].pwff.dropout.prob = 0;
  expect_near_all(host(v.forward({x})), host(no_dropout.forward({x})), 1e-6);
}

TEST(TransformerDecoder, IncrementalCacheMatchesFullCausalPass) {
  for (bool norm_first : {false, true}) {
    SCOPED_TRACE(norm_first);
    TransformerDecoder dec = TransformerDecoderConfig(8, 16, 2, 2)
                                 .with_dropout(0)
                                 .with_norm_first(norm_first)
                                 .init(dev());
    auto target = from_host<3>(random_values(2 * 4 * 8, 3), Shape{2, 4, 8});
    auto memory = from_host<3>(random_values(2 * 3 * 8, 4), Shape{2, 3, 8});
    auto mem_pad = Tensor<2, Bool>::from_data(
        TensorData(std::vector<bool>{0, 0, 0, 0, 0, 1}, Shape{2, 3}), dev());
    TransformerDecoderInput full;
    full.target = target;
    full.memory = memory;
    full.memory_mask_pad = mem_pad;
    full.target_causal = true;
    auto want = dec.forward(full);
    TransformerDecoderCache cache = dec.new_autoregressive_cache();
    std::vector<Tensor<3>> rows;
    for (auto [start, len] : {std::pair{0, 3}, {3, 1}}) {
      TransformerDecoderInput step = full;
      step.target = target.narrow(1, start, len);
      rows.push_back(dec.forward_autoregressive(step, cache));
    }
    EXPECT_EQ(cache.len(), 4);
    expect_tensor(Tensor<3>::cat(rows, 1), Shape{2, 4, 8}, host(want), 1e-5);
  }
}

TEST(PositionWiseFeedForward, MatchesFormulaAndGradients) {
  auto ff = PositionWiseFeedForwardConfig(4, 6).with_dropout(0).with_activation("relu").init(dev());
  auto x = from_host<3>(random_values(2 * 3 * 4, 5), Shape{2, 3, 4});
  auto w1 = ff.linear_inner.weight.val(), w2 = ff.linear_outer.weight.val();
  auto want = activation::relu(x.matmul(w1.unsqueeze<3>().expand<3>(Shape{2, 4, 6})) +
                               ff.linear_inner.bias->val().unsqueeze<3>())
                  .matmul(w2.unsqueeze<3>().expand<3>(Shape{2, 6, 4})) +
              ff.linear_outer.bias->val().unsqueeze<3>();
  expect_tensor(ff.forward(x), Shape{2, 3, 4}, host(want), 1e-5);
  auto gelu_ff = PositionWiseFeedForwardConfig(4, 6).with_dropout(0).init(dev());
  testing::expect_grads_on_device<PositionWiseFeedForward, 3>(
      gelu_ff, x,
      [](const PositionWiseFeedForward& m, const Tensor<3>& in) {
        auto y = m.forward(in);
        return (y * y).sum();
      },
      1e-5);
  expect_error([] { PositionWiseFeedForwardConfig(4, 6).with_activation("swish").init(dev()); },
               {"PositionWiseFeedForwardConfig", "activation", "swish"});
}

TEST(PositionalEncoding, AddsSinusoids) {
  PositionalEncoding pe = PositionalEncodingConfig(6).with_max_sequence_size(10).init(dev());
  auto x = from_host<3>(random_values(2 * 4 * 6, 6), Shape{2, 4, 6});
  auto xv = host(x);
  std::vector<double> want(xv.size());
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t pos = 0; pos < 4; ++pos)
      for (int64_t i = 0; i < 6; ++i) {
        const double angle = pos / std::pow(10000.0, (i - i % 2) / 6.0);
        const size_t at = (b * 4 + pos) * 6 + i;
        want[at] = xv[at] + (i % 2 == 0 ? std::sin(angle) : std::cos(angle));
      }
  expect_tensor(pe.forward(x), Shape{2, 4, 6}, want, 1e-5);
  expect_error(
      [&] {
        pe.forward(Tensor<3>::zeros(Shape{1, 11, 6}, dev()));
      },
      {"PositionalEncoding", "exceed", "10"});
  expect_error([] { PositionalEncodingConfig(5).init(dev()); },
               {"PositionalEncodingConfig", "even"});
}

TEST(RotaryEncoding, RotatesPairsFromOffset) {
  RotaryEncoding rope = RotaryEncodingConfig(16, 4).init(dev());
  auto x = from_host<4>(random_values(2 * 3 * 4, 7), Shape{1, 2, 3, 4});
  const int64_t start = 5;
  auto xv = host(x);
  std::vector<double> want(xv.size());
  for (int64_t r = 0; r < 6; ++r) {
    const int64_t pos = start + r % 3;
    for (int64_t i = 0; i < 2; ++i) {
      const double angle = pos * std::pow(10000.0, -2.0 * i / 4), a = xv[r * 4 + 2 * i],
                   b = xv[r * 4 + 2 * i + 1];
      want[r * 4 + 2 * i] = a * std::cos(angle) - b * std::sin(angle);
      want[r * 4 + 2 * i + 1] = a * std::sin(angle) + b * std::cos(angle);
    }
  }
  auto y = rope.forward(x, start);
  expect_tensor(y, Shape{1, 2, 3, 4}, want, 1e-5);
  // A rotation keeps each pair's norm, and the rank-3 form agrees.
  expect_near_all(host((y * y).sum_dim(3)), host((x * x).sum_dim(3)), 1e-5);
  auto y3 = rope.forward(x.reshape<3>(Shape{2, 3, 4}), start);
  expect_near_all(host(y3), want, 1e-5);
  expect_error([&] { rope.forward(x, 14); }, {"RotaryEncoding", "exceed", "16"});
}

}  // namespace
}  // namespace ember::nn
