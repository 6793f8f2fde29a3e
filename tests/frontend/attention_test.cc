// module::attention against plain loops (tests/frontend/attention_reference.h): outputs, weights
// and the gradients of q, k and v, over masks (boolean, additive, causal, ragged key padding),
// one head, grouped-query heads, sequence 1, head dims 32/64/128 and quiet softmax; dropout's
// statistics; half precision; and the errors of bad shapes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "frontend/detail/primitives.h"
#include "tests/frontend/attention_reference.h"
#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::AttentionCase;
using testing::expect_error;

std::vector<double> random_values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (auto& x : v) x = u(gen);
  return v;
}

Tensor<4> tensor4(const std::vector<double>& v, const Shape& s) {
  return Tensor<4>::from_data(TensorData(v, s).convert(DType::F32));
}

std::vector<double> host(const Tensor<4>& t) { return t.to_data().to_vec<double>(); }

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol,
                  const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << what << " " << i;
  }
}

struct Inputs {
  Shape qs, ks, vs;
  std::vector<double> q, k, v, dout;
};

Inputs make_inputs(const AttentionCase& c) {
  Inputs in{Shape{c.batch, c.heads, c.seq_q, c.head_dim},
            Shape{c.batch, c.kv_heads, c.seq_k, c.head_dim},
            Shape{c.batch, c.kv_heads, c.seq_k, c.head_dim_v},
            {},
            {},
            {},
            {}};
  in.q = random_values(in.qs.numel(), 1);
  in.k = random_values(in.ks.numel(), 2);
  in.v = random_values(in.vs.numel(), 3);
  in.dout = random_values(c.batch * c.heads * c.seq_q * c.head_dim_v, 4);
  return in;
}

// Runs attention with `options` and checks the output, the weights and, through backward of
// sum(out * dout), the gradients of q, k and v against the loops.
void check_case(const AttentionCase& c, const module::AttentionOptions& options,
                double tol = 2e-5) {
  Inputs in = make_inputs(c);
  auto want = testing::attention_reference(c, in.q, in.k, in.v, in.dout);
  Tensor<4> q = tensor4(in.q, in.qs).require_grad(), k = tensor4(in.k, in.ks).require_grad(),
            v = tensor4(in.v, in.vs).require_grad();
  auto [out, weights] = module::attention_with_weights(q, k, v, options);
  expect_close(host(out), want.out, tol, "output");
  expect_close(host(weights), want.weights, tol, "weights");
  Gradients grads =
      (module::attention(q, k, v, options) * tensor4(in.dout, out.shape())).sum().backward();
  expect_close(host(q.grad(grads).value()), want.dq, tol, "dq");
  expect_close(host(k.grad(grads).value()), want.dk, tol, "dk");
  expect_close(host(v.grad(grads).value()), want.dv, tol, "dv");
}

AttentionCase shape_case(int64_t b, int64_t h, int64_t kvh, int64_t sq, int64_t sk, int64_t d) {
  AttentionCase c;
  c.batch = b, c.heads = h, c.kv_heads = kvh, c.seq_q = sq, c.seq_k = sk;
  c.head_dim = c.head_dim_v = d;
  c.scale = 1.0 / std::sqrt(static_cast<double>(d));
  return c;
}

TEST(Attention, PlainHeadDims32_64_128) {
  for (int64_t d : {32, 64, 128}) {
    SCOPED_TRACE(d);
    check_case(shape_case(2, 2, 2, 3, 5, d), {});
  }
}

TEST(Attention, OneHeadAndSequenceOne) {
  check_case(shape_case(1, 1, 1, 1, 1, 32), {});
  check_case(shape_case(2, 1, 1, 1, 6, 32), {});
  AttentionCase c = shape_case(3, 1, 1, 4, 4, 8);
  c.masked = [](int64_t, int64_t, int64_t i, int64_t j) { return j > i; };
  check_case(c, {.causal = true});
}

TEST(Attention, ValueHeadDimDiffers) {
  AttentionCase c = shape_case(2, 2, 2, 3, 4, 8);
  c.head_dim_v = 5;
  check_case(c, {});
}

TEST(Attention, CausalSquareAndBottomRightAligned) {
  for (int64_t sq : {5, 2, 1}) {
    SCOPED_TRACE(sq);
    AttentionCase c = shape_case(2, 2, 2, sq, 5, 32);
    const int64_t shift = c.seq_k - c.seq_q;
    c.masked = [shift](int64_t, int64_t, int64_t i, int64_t j) { return j > i + shift; };
    check_case(c, {.causal = true});
  }
}

// Keys beyond each sequence's length are padding; the second sequence is all padding, so its
// queries see nothing and get zeros.
TEST(Attention, RaggedKeyPaddingAndFullyMaskedRows) {
  AttentionCase c = shape_case(3, 2, 2, 3, 5, 16);
  const std::vector<int64_t> lengths = {5, 0, 2};
  c.masked = [lengths](int64_t b, int64_t, int64_t, int64_t j) { return j >= lengths[b]; };
  std::vector<bool> pad;
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t j = 0; j < 5; ++j) pad.push_back(j >= lengths[b]);
  auto padding = Tensor<2, Bool>::from_data(TensorData(pad, Shape{3, 5}));
  check_case(c, {.key_padding_mask = padding});
}

TEST(Attention, BoolMaskBroadcastWithCausalAndPadding) {
  AttentionCase c = shape_case(2, 2, 2, 4, 4, 8);
  // A mask [1, 1, 4, 4] hiding (i + 2 j) % 3 == 0, with causal and key 3 of batch 1 padded.
  auto hidden = [](int64_t i, int64_t j) { return (i + 2 * j) % 3 == 0; };
  c.masked = [&](int64_t b, int64_t, int64_t i, int64_t j) {
    return hidden(i, j) || j > i || (b == 1 && j == 3);
  };
  std::vector<bool> m;
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 4; ++j) m.push_back(hidden(i, j));
  auto mask = Tensor<4, Bool>::from_data(TensorData(m, Shape{1, 1, 4, 4}));
  std::vector<bool> pad = {0, 0, 0, 0, 0, 0, 0, 1};
  auto padding = Tensor<2, Bool>::from_data(TensorData(pad, Shape{2, 4}));
  check_case(c, {.causal = true, .bool_mask = mask, .key_padding_mask = padding});
}

TEST(Attention, AdditiveMaskPerBatchAndCustomScale) {
  AttentionCase c = shape_case(2, 3, 3, 3, 4, 8);
  c.scale = 0.7;
  c.additive = [](int64_t b, int64_t, int64_t i, int64_t j) { return 0.3 * b - 0.2 * i * j; };
  std::vector<double> add;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 4; ++j) add.push_back(0.3 * b - 0.2 * i * j);
  check_case(c, {.scale = 0.7, .additive_mask = tensor4(add, Shape{2, 1, 3, 4})});
}

TEST(Attention, GroupedQueryHeads) {
  check_case(shape_case(2, 4, 2, 3, 5, 16), {});
  check_case(shape_case(1, 6, 1, 2, 3, 8), {});  // multi-query: one key/value head
  AttentionCase c = shape_case(2, 4, 2, 4, 4, 8);
  c.masked = [](int64_t, int64_t, int64_t i, int64_t j) { return j > i; };
  check_case(c, {.causal = true});
}

TEST(Attention, QuietSoftmaxWithAndWithoutMask) {
  AttentionCase c = shape_case(2, 2, 2, 3, 4, 8);
  c.quiet = true;
  check_case(c, {.quiet_softmax = true});
  c.masked = [](int64_t b, int64_t, int64_t i, int64_t j) { return b == 1 || j > i + 1; };
  std::vector<bool> pad = {0, 0, 0, 0, 1, 1, 1, 1};
  auto padding = Tensor<2, Bool>::from_data(TensorData(pad, Shape{2, 4}));
  check_case(c, {.causal = true, .key_padding_mask = padding, .quiet_softmax = true});
}

// Each weight is dropped (0) or kept and scaled by 1 / (1 - p); the output is the product of
// those weights with v; about p of them are dropped; outside training nothing is.
TEST(Attention, DropoutScalesKeptWeights) {
  AttentionCase c = shape_case(4, 4, 4, 16, 16, 8);
  Inputs in = make_inputs(c);
  auto want = testing::attention_reference(c, in.q, in.k, in.v, in.dout);
  Tensor<4> q = tensor4(in.q, in.qs), k = tensor4(in.k, in.ks), v = tensor4(in.v, in.vs);
  auto [out, weights] = module::attention_with_weights(q, k, v, {.dropout = 0.25});
  std::vector<double> w = host(weights);
  size_t dropped = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] == 0) {
      ++dropped;
    } else {
      EXPECT_NEAR(w[i], want.weights[i] / 0.75, 1e-5) << i;
    }
  }
  EXPECT_NEAR(static_cast<double>(dropped) / w.size(), 0.25, 0.04);
  expect_close(host(out), host(weights.matmul(v)), 1e-5, "output");
  auto eval = module::attention(q, k, v, {.dropout = 0.25, .training = false});
  expect_close(host(eval), want.out, 2e-5, "eval output");
}

TEST(Attention, HalfPrecisionMatchesLoops) {
  AttentionCase c = shape_case(2, 2, 2, 8, 8, 32);
  c.masked = [](int64_t, int64_t, int64_t i, int64_t j) { return j > i; };
  Inputs in = make_inputs(c);
  auto want = testing::attention_reference(c, in.q, in.k, in.v, in.dout);
  for (DType dt : {DType::BF16, DType::F16}) {
    auto q = tensor4(in.q, in.qs).cast(dt), k = tensor4(in.k, in.ks).cast(dt),
         v = tensor4(in.v, in.vs).cast(dt);
    Tensor<4> out = module::attention(q, k, v, {.causal = true});
    EXPECT_EQ(out.dtype(), dt);
    expect_close(host(out.cast(DType::F32)), want.out, dt == DType::BF16 ? 3e-2 : 4e-3, "half");
  }
}

TEST(Attention, ErrorsNameTheOpAndShapes) {
  auto z = [](std::vector<int64_t> s) { return Tensor<4>::zeros(Shape(s)); };
  expect_error(
      [&] {
        module::attention(z({2, 4, 3, 8}), z({2, 3, 5, 8}), z({2, 3, 5, 8}));
      },
      {"attention", "must divide", "f32[2, 4, 3, 8]", "f32[2, 3, 5, 8]"});
  expect_error(
      [&] {
        module::attention(z({2, 4, 3, 8}), z({2, 4, 5, 6}), z({2, 4, 5, 8}));
      },
      {"attention", "head dims differ"});
  expect_error(
      [&] {
        module::attention(z({2, 4, 3, 8}), z({1, 4, 5, 8}), z({1, 4, 5, 8}));
      },
      {"attention", "batch"});
  expect_error(
      [&] {
        module::attention(z({2, 4, 3, 8}), z({2, 4, 5, 8}), z({2, 4, 6, 8}));
      },
      {"attention", "sequence lengths differ"});
  expect_error(
      [&] {
        module::attention(z({2, 4, 3, 8}), z({2, 4, 5, 8}), z({2, 4, 5, 8}),
                          {.additive_mask = z({1, 1, 3, 4})});
      },
      {"attention", "additive_mask", "[1, 1, 3, 4]", "[2, 4, 3, 5]"});
  expect_error(
      [&] {
        module::attention(z({2, 4, 3, 8}), z({2, 4, 5, 8}), z({2, 4, 5, 8}),
                          {.key_padding_mask = Tensor<2, Bool>::full(Shape{2, 3}, false)});
      },
      {"attention", "key_padding_mask", "[2, 3]"});
  expect_error(
      [&] {
        module::attention(z({1, 1, 2, 4}), z({1, 1, 2, 4}), z({1, 1, 2, 4}), {.dropout = 1});
      },
      {"attention", "dropout"});
  // The stream stays usable after a rejected call.
  EXPECT_EQ(module::attention(z({1, 1, 2, 4}), z({1, 1, 2, 4}), z({1, 1, 2, 4})).shape(),
            Shape({1, 1, 2, 4}));
}

// Without gradients, module::attention records the attention primitive (ir::OpKind::Attention):
// the reference executor runs it by loops of its own (runtime/cpu/attention.cc), the CPU target
// as the composite it is rewritten into. Both against the test's loops.
TEST(AttentionPrimitive, MatchesLoopsOnBothCpuDevices) {
  std::vector<std::pair<AttentionCase, bool>> cases;  // (case, causal)
  cases.emplace_back(shape_case(2, 2, 2, 3, 5, 32), false);
  cases.emplace_back(shape_case(1, 4, 2, 6, 6, 16), true);   // grouped heads, causal
  cases.emplace_back(shape_case(2, 2, 1, 2, 7, 8), true);    // bottom-right aligned
  cases.emplace_back(shape_case(1, 2, 2, 6, 3, 8), true);    // queries that see no key
  cases.emplace_back(shape_case(1, 1, 1, 1, 1, 64), false);  // sequence 1
  AttentionCase dv = shape_case(2, 2, 2, 3, 4, 8);
  dv.head_dim_v = 5;
  cases.emplace_back(dv, false);
  for (auto& [c, causal] : cases) {
    const int64_t shift = c.seq_k - c.seq_q;
    if (causal)
      c.masked = [shift](int64_t, int64_t, int64_t i, int64_t j) { return j > i + shift; };
    Inputs in = make_inputs(c);
    auto want = testing::attention_reference(c, in.q, in.k, in.v, in.dout);
    for (Device dev : {Device::cpu_reference(), Device::cpu()}) {
      SCOPED_TRACE(dev.to_string() + (causal ? " causal " : " ") + in.qs.to_string());
      auto f64 = [&](const std::vector<double>& v, const Shape& s) {
        return Tensor<4>::from_data(TensorData(v, s), dev);
      };
      Tensor<4> out = module::attention(f64(in.q, in.qs), f64(in.k, in.ks), f64(in.v, in.vs),
                                        {.scale = c.scale, .causal = causal});
      expect_close(host(out), want.out, 1e-12, "f64 output");
      Tensor<4> out32 = module::attention(
          f64(in.q, in.qs).cast(DType::F32), f64(in.k, in.ks).cast(DType::F32),
          f64(in.v, in.vs).cast(DType::F32), {.scale = c.scale, .causal = causal});
      expect_close(host(out32), want.out, 2e-6, "f32 output");
    }
  }
}

// The primitive's gradients (ir/attention_compose.h) against the loops, in f64 on both CPU
// devices: the frontend records it only without gradients, so the test records it directly.
TEST(AttentionPrimitive, GradientsMatchLoops) {
  for (int64_t sq : {5, 9}) {  // 9 queries of 7 keys: the first two see no key
    AttentionCase c = shape_case(2, 4, 2, sq, 7, 8);
    const int64_t shift = c.seq_k - c.seq_q;
    c.masked = [shift](int64_t, int64_t, int64_t i, int64_t j) { return j > i + shift; };
    Inputs in = make_inputs(c);
    auto want = testing::attention_reference(c, in.q, in.k, in.v, in.dout);
    for (Device dev : {Device::cpu_reference(), Device::cpu()}) {
      SCOPED_TRACE(dev.to_string());
      auto f64 = [&](const std::vector<double>& v, const Shape& s) {
        return Tensor<4>::from_data(TensorData(v, s), dev).require_grad();
      };
      Tensor<4> q = f64(in.q, in.qs), k = f64(in.k, in.ks), v = f64(in.v, in.vs);
      ir::AttentionAttrs attrs;
      attrs.scale = c.scale;
      attrs.causal = true;
      Tensor<4> out(prim::attention(q.raw(), k.raw(), v.raw(), attrs));
      Gradients g =
          (out * Tensor<4>::from_data(TensorData(in.dout, out.shape()), dev)).sum().backward();
      expect_close(host(out), want.out, 1e-12, "output");
      expect_close(host(q.grad(g).value()), want.dq, 1e-10, "dq");
      expect_close(host(k.grad(g).value()), want.dk, 1e-10, "dk");
      expect_close(host(v.grad(g).value()), want.dv, 1e-10, "dv");
    }
  }
}

// In half precision with head dim 64 the gradient goes through the fused kernels' modes (the
// log-sum-exp, dq, packed dk and dv: ir/attention_compose.h): the reference runs them by loops,
// the CPU target as their composites. Both against the loops, grouped heads and queries that
// see no key included.
TEST(AttentionPrimitive, HalfGradientsThroughTheModesMatchLoops) {
  AttentionCase c = shape_case(1, 4, 2, 9, 7, 64);
  const int64_t shift = c.seq_k - c.seq_q;
  c.masked = [shift](int64_t, int64_t, int64_t i, int64_t j) { return j > i + shift; };
  Inputs in = make_inputs(c);
  // The loops see the inputs as rounded to bf16.
  auto rounded = [](const std::vector<double>& v, const Shape& s) {
    return Tensor<4>::from_data(TensorData(v, s))
        .cast(DType::BF16)
        .cast(DType::F64)
        .to_data()
        .to_vec<double>();
  };
  in.q = rounded(in.q, in.qs), in.k = rounded(in.k, in.ks), in.v = rounded(in.v, in.vs);
  auto want = testing::attention_reference(c, in.q, in.k, in.v, in.dout);
  for (Device dev : {Device::cpu_reference(), Device::cpu()}) {
    SCOPED_TRACE(dev.to_string());
    auto half = [&](const std::vector<double>& v, const Shape& s) {
      return Tensor<4>::from_data(TensorData(v, s), dev).cast(DType::BF16).require_grad();
    };
    Tensor<4> q = half(in.q, in.qs), k = half(in.k, in.ks), v = half(in.v, in.vs);
    ir::AttentionAttrs attrs;
    attrs.scale = c.scale;
    attrs.causal = true;
    Tensor<4> out(prim::attention(q.raw(), k.raw(), v.raw(), attrs));
    auto dout = Tensor<4>::from_data(TensorData(in.dout, out.shape()), dev).cast(DType::BF16);
    Gradients g = (out * dout).cast(DType::F32).sum().backward();
    auto f64 = [](const Tensor<4>& t) { return host(t.cast(DType::F64)); };
    expect_close(f64(out), want.out, 2e-2, "output");
    expect_close(f64(q.grad(g).value()), want.dq, 3e-2, "dq");
    expect_close(f64(k.grad(g).value()), want.dk, 3e-2, "dk");
    expect_close(f64(v.grad(g).value()), want.dv, 3e-2, "dv");
  }
}

TEST(AttentionPrimitive, BadOperandsNameTheOpAndShapes) {
  auto z = [](std::vector<int64_t> s, DType t = DType::F32) {
    return Tensor<4>::zeros(Shape(s)).cast(t).raw();
  };
  ir::AttentionAttrs a;
  expect_error(
      [&] {
        prim::attention(z({2, 4, 3, 8}), z({2, 3, 5, 8}), z({2, 3, 5, 8}), a);
      },
      {"attention", "must divide", "f32[2, 4, 3, 8]"});
  expect_error(
      [&] {
        prim::attention(z({2, 4, 3, 8}), z({2, 4, 5, 8}, DType::BF16), z({2, 4, 5, 8}), a);
      },
      {"attention", "one floating dtype"});
  expect_error(
      [&] {
        prim::attention(z({2, 4, 3, 8}), z({2, 4, 5, 6}), z({2, 4, 5, 8}), a);
      },
      {"attention", "dims differ"});
  expect_error(
      [&] {
        prim::attention(z({2, 4, 3, 8}), z({2, 4, 5, 8}), z({2, 4, 4, 8}), a);
      },
      {"attention", "heads or length"});
  expect_error(
      [&] {
        prim::attention(z({2, 4, 3, 8}), z({2, 4, 0, 8}), z({2, 4, 0, 8}), a);
      },
      {"attention", "at least one key", "[2, 4, 0, 8]"});
}

}  // namespace
}  // namespace ember
