// Attention on the suite's device (the CPU, or lavapipe through EMBER_NN_TEST_DEVICE):
// module::attention against the plain loops of tests/frontend/attention_reference.h, forward and
// backward; MultiHeadAttention's masks helpers, its autoregressive cache against the full causal
// pass, gradients against central differences; CrossAttention's grouped heads against the same
// module with every key/value head spelled out; config checks.
#include <gtest/gtest.h>

#include <random>

#include "tests/frontend/attention_reference.h"
#include "tests/nn/seq_grads.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::expect_error;
using testing::expect_near_all;
using testing::expect_tensor;
using testing::from_host;
using testing::host;

std::vector<double> random_values(size_t n, uint32_t seed, double scale = 1.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v(n);
  for (auto& x : v) x = u(gen);
  return v;
}

TEST(AttentionOnDevice, CausalGqaPaddedMatchesLoops) {
  ember::testing::AttentionCase c;
  c.batch = 2, c.heads = 4, c.kv_heads = 2, c.seq_q = 3, c.seq_k = 5, c.head_dim = 32;
  c.head_dim_v = 32, c.scale = 1.0 / std::sqrt(32.0);
  c.masked = [](int64_t b, int64_t, int64_t i, int64_t j) {
    return j > i + 2 || (b == 1 && j > 2);
  };
  const Shape qs{2, 4, 3, 32}, ks{2, 2, 5, 32}, os{2, 4, 3, 32};
  auto qv = random_values(qs.numel(), 1), kv = random_values(ks.numel(), 2),
       vv = random_values(ks.numel(), 3), dout = random_values(os.numel(), 4);
  auto want = ember::testing::attention_reference(c, qv, kv, vv, dout);
  auto q = from_host<4>(qv, qs).require_grad(), k = from_host<4>(kv, ks).require_grad(),
       v = from_host<4>(vv, ks).require_grad();
  auto pad = Tensor<2, Bool>::from_data(
      TensorData(std::vector<bool>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, Shape{2, 5}), dev());
  module::AttentionOptions o;
  o.causal = true;
  o.key_padding_mask = pad;
  Tensor<4> y = module::attention(q, k, v, o);
  expect_tensor(y, os, want.out, 1e-4);
  Gradients g = (y * from_host<4>(dout, os)).sum().backward();
  expect_near_all(host(q.grad(g).value()), want.dq, 1e-4);
  expect_near_all(host(k.grad(g).value()), want.dk, 1e-4);
  expect_near_all(host(v.grad(g).value()), want.dv, 1e-4);
}

TEST(MultiHeadAttention, MaskHelpers) {
  auto causal = generate_autoregressive_mask(2, 3, dev());
  EXPECT_EQ(causal.shape(), Shape({2, 3, 3}));
  expect_near_all(host(causal), {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0});
  auto pm = generate_padding_mask(0, {{5, 6, 7}, {8}, {1, 2, 3, 4, 9}}, 4, dev());
  EXPECT_EQ(pm.tensor.shape(), Shape({3, 4}));
  expect_near_all(host(pm.tensor), {5, 6, 7, 0, 8, 0, 0, 0, 1, 2, 3, 4});
  expect_near_all(host(pm.mask), {0, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0});
}

TEST(MultiHeadAttention, ConfigDefaultsAndChecks) {
  MultiHeadAttentionConfig c(16, 4);
  EXPECT_EQ(c.dropout, 0.1);
  EXPECT_FALSE(c.quiet_softmax);
  EXPECT_EQ(c.initializer, Initializer::kaiming_uniform(1.0 / std::sqrt(3.0), false));
  EXPECT_EQ(MultiHeadAttentionConfig::from_json(c.with_quiet_softmax(true).to_json()),
            c.with_quiet_softmax(true));
  MultiHeadAttention m = c.init(dev());
  EXPECT_EQ(m.num_params(), 4 * (16 * 16 + 16));
  EXPECT_EQ(m.d_k(), 4);
  expect_error([] { MultiHeadAttentionConfig(10, 4).init(dev()); },
               {"MultiHeadAttentionConfig", "divisible"});
  expect_error(
      [&] {
        m.forward(MhaInput::self_attn(Tensor<3>::zeros(Shape{2, 3, 8}, dev())));
      },
      {"MultiHeadAttention", "f32[2, 3, 8]"});
}

MultiHeadAttention small_mha(bool quiet = false) {
  return MultiHeadAttentionConfig(8, 2).with_dropout(0).with_quiet_softmax(quiet).init(dev());
}

// Decoding a sequence one position (then two) at a time through the cache gives the rows of the
// full causal pass.
TEST(MultiHeadAttention, AutoregressiveCacheMatchesFullCausalPass) {
  for (bool quiet : {false, true}) {
    MultiHeadAttention mha = small_mha(quiet);
    auto x = from_host<3>(random_values(2 * 5 * 8, 7), Shape{2, 5, 8});
    auto full = mha.forward(MhaInput::self_attn(x).with_mask_attn(
                                generate_autoregressive_mask(2, 5, dev())))
                    .context;
    MhaCache cache = MhaCache::growing();
    std::vector<Tensor<3>> rows;
    for (auto [start, len] : {std::pair{0, 1}, {1, 1}, {2, 2}, {4, 1}}) {
      auto step = x.narrow(1, start, len);
      rows.push_back(
          mha.forward_autoregressive(MhaInput::self_attn(step).with_causal(true), cache).context);
    }
    EXPECT_EQ(cache.len(), 5);
    expect_tensor(Tensor<3>::cat(rows, 1), full.shape(), host(full), 1e-5);
  }
}

TEST(MultiHeadAttention, FixedMemoryCacheReusesProjections) {
  MultiHeadAttention mha = small_mha();
  auto q = from_host<3>(random_values(2 * 3 * 8, 8), Shape{2, 3, 8});
  auto mem = from_host<3>(random_values(2 * 4 * 8, 9), Shape{2, 4, 8});
  auto full = mha.forward(MhaInput::cross(q, mem, mem)).context;
  MhaCache cache = MhaCache::fixed_memory();
  auto first = mha.forward_autoregressive(MhaInput::cross(q.narrow(1, 0, 2), mem, mem), cache);
  // The second step passes no memory: the cache holds its projections.
  auto empty = Tensor<3>::zeros(Shape{2, 1, 8}, dev());
  auto second = mha.forward_autoregressive(MhaInput::cross(q.narrow(1, 2, 1), empty, empty), cache);
  EXPECT_EQ(cache.len(), 4);
  expect_tensor(Tensor<3>::cat({first.context, second.context}, 1), full.shape(), host(full), 1e-5);
}

TEST(MultiHeadAttention, GradientsMatchCentralDifferences) {
  MultiHeadAttention mha = small_mha();
  auto x = from_host<3>(random_values(2 * 3 * 8, 10), Shape{2, 3, 8});
  auto pad = Tensor<2, Bool>::from_data(
      TensorData(std::vector<bool>{0, 0, 0, 0, 0, 1}, Shape{2, 3}), dev());
  testing::expect_grads_on_device<MultiHeadAttention, 3>(
      mha, x,
      [&](const MultiHeadAttention& m, const Tensor<3>& in) {
        auto mask = pad.to_device(in.device());
        auto y = m.forward(MhaInput::self_attn(in).with_mask_pad(mask).with_causal(true)).context;
        return (y * y).sum();
      },
      1e-5);
}

// Self-attention projects through the three weights joined (one product); the same module
// given a key/value tensor that is another value with the same elements projects separately.
// Both give the same context and the same gradients, for every parameter and the input.
TEST(MultiHeadAttention, SelfAttentionPackedProjectionEqualsSeparateOnes) {
  MultiHeadAttention mha = small_mha();
  auto x = from_host<3>(random_values(2 * 3 * 8, 12), Shape{2, 3, 8});
  auto run = [&](bool packed) {
    Tensor<3> xg = x.detach().require_grad();
    // Another lazy value, equal to xg: the separate projections.
    Tensor<3> kv = Tensor<3>::cat({xg.narrow(1, 0, 1), xg.narrow(1, 1, 2)}, 1);
    MhaInput in = packed ? MhaInput::self_attn(xg) : MhaInput::cross(xg, kv, kv);
    Tensor<3> y = mha.forward(in.with_causal(true)).context;
    Gradients g = (y * y).sum().backward();
    std::vector<std::vector<double>> out{host(y), host(xg.grad(g).value())};
    for (const Linear* l : {&mha.query, &mha.key, &mha.value}) {
      out.push_back(host(l->weight.grad(g).value()));
      out.push_back(host(l->bias->grad(g).value()));
    }
    return out;
  };
  auto packed = run(true), separate = run(false);
  ASSERT_EQ(packed.size(), separate.size());
  for (size_t i = 0; i < packed.size(); ++i) {
    SCOPED_TRACE(i);
    expect_near_all(packed[i], separate[i], 1e-5);
  }
}

// Weights [d, kv_heads * d_head] with each kv head's columns repeated for its query heads.
Tensor<2> repeat_head_columns(const Tensor<2>& w, int64_t kv_heads, int64_t group) {
  const int64_t d = w.shape()[0], d_head = w.shape()[1] / kv_heads;
  return w.reshape<3>(Shape{d, kv_heads, d_head})
      .unsqueeze_dim<4>(2)
      .expand<4>(Shape{d, kv_heads, group, d_head})
      .reshape<2>(Shape{d, kv_heads * group * d_head});
}

TEST(CrossAttention, GroupedHeadsEqualRepeatedHeads) {
  CrossAttentionConfig gqa(6, 5, 4, 2, 3);
  gqa = gqa.with_dropout(0);
  CrossAttention g = gqa.init(dev());
  // The same module with 4 key/value heads, head k a copy of grouped head k / 2.
  CrossAttention full = CrossAttentionConfig(6, 5, 4, 4, 3).with_dropout(0).init(dev());
  full.query = g.query;
  full.output = g.output;
  for (auto [src, dst] : {std::pair{&g.key, &full.key}, {&g.value, &full.value}}) {
    dst->weight = dst->weight.with_value(repeat_head_columns(src->weight.val(), 2, 2));
    auto b = src->bias->val().unsqueeze<2>();
    dst->bias = dst->bias->with_value(repeat_head_columns(b, 2, 2).squeeze<1>(0));
  }
  auto q = from_host<3>(random_values(2 * 3 * 6, 11), Shape{2, 3, 6});
  auto ctx = from_host<3>(random_values(2 * 4 * 5, 12), Shape{2, 4, 5});
  auto pad = Tensor<2, Bool>::from_data(
      TensorData(std::vector<bool>{0, 0, 0, 1, 0, 0, 0, 0}, Shape{2, 4}), dev());
  auto want = full.forward(q, ctx, pad);
  expect_tensor(g.forward(q, ctx, pad), Shape{2, 3, 6}, host(want), 1e-5);
  EXPECT_EQ(g.num_params(), (6 * 12 + 12) + 2 * (5 * 6 + 6) + (12 * 6 + 6));
  expect_error([] { CrossAttentionConfig(6, 5, 4, 3, 2).init(dev()); },
               {"CrossAttentionConfig", "n_heads_kv"});
}

}  // namespace
}  // namespace ember::nn
