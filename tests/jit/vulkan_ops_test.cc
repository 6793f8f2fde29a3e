// The whole tensor op suite on Vulkan, fused and unfused, against the CPU reference. Every
// program builds its inputs from host data (identical on both devices), runs a group of ops and
// returns their outputs; vulkan_util.h runs it on the CPU and on Vulkan (with fusion on and off)
// and compares shapes, dtypes and values.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/frontend/test_util.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::host_uniform;
using testing::Program;
using Outs = std::vector<RawTensor>;

using testing::kInf;
using testing::kNaN;

// Runs `p` on the CPU and on Vulkan, fused and unfused. A throw (on either device) is a failure
// naming `what`, and the fusion switch is restored so later checks run as intended.
// Without a tolerance, each output's dtype default (gpu_util.h's Tol); a given one is exact.
void check(const std::string& what, const Program& p, testing::Tol tol = {}) {
  SCOPED_TRACE(what);
  try {
    testing::expect_same_fused_and_unfused(p, tol);
  } catch (const std::exception& e) {
    jit::set_fusion_override(-1);
    ADD_FAILURE() << what << " threw: " << e.what();
  }
}

using testing::expect_error;

// ---------------------------------------------------------------- input builders

// Uniform floats in [lo, hi).
template <int D>
Tensor<D> uni(const Shape& s, uint32_t seed, const Device& dev, double lo = -2.0, double hi = 2.0) {
  return Tensor<D>::from_data(host_uniform(s, seed, lo, hi), dev);
}

// Uniform floats of another float dtype (converted on the host).
template <int D>
Tensor<D> uni_as(DType t, const Shape& s, uint32_t seed, const Device& dev, double lo = -2.0,
                 double hi = 2.0) {
  return Tensor<D>::from_data(host_uniform(s, seed, lo, hi).convert(t), dev);
}

// Uniform i32 values in [lo, hi].
template <int D>
Tensor<D, Int> randint(const Shape& s, uint32_t seed, int32_t lo, int32_t hi, const Device& dev) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int32_t> dist(lo, hi);
  std::vector<int32_t> v(static_cast<size_t>(s.numel()));
  for (int32_t& x : v) x = dist(gen);
  return Tensor<D, Int>::from_data(TensorData(v, s), dev);
}

// Uniform i64 values in [lo, hi].
template <int D>
Tensor<D, Int> randint64(const Shape& s, uint32_t seed, int64_t lo, int64_t hi, const Device& dev) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  std::vector<int64_t> v(static_cast<size_t>(s.numel()));
  for (int64_t& x : v) x = dist(gen);
  return Tensor<D, Int>::from_data(TensorData(v, s), dev);
}

// Bools, true with probability p.
template <int D>
Tensor<D, Bool> randbool(const Shape& s, uint32_t seed, const Device& dev, double p = 0.5) {
  std::mt19937 gen(seed);
  std::bernoulli_distribution dist(p);
  std::vector<bool> v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = dist(gen);
  return Tensor<D, Bool>::from_data(TensorData(v, s), dev);
}

// start, start + step, ... in row-major order.
template <int D>
Tensor<D> seqf(const Shape& s, const Device& dev, double start = 0.0, double step = 1.0) {
  std::vector<float> v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<float>(start + step * static_cast<double>(i));
  }
  return Tensor<D>::from_data(TensorData(v, s), dev);
}

template <int D>
Tensor<D, Int> seqi(const Shape& s, const Device& dev, int32_t start = 0) {
  std::vector<int32_t> v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<int32_t>(i);
  return Tensor<D, Int>::from_data(TensorData(v, s), dev);
}

// Special float values: signed zeros, halves (rounding), large and tiny values, NaN, infinities.
Tensor<1> specials(const Device& dev) {
  return Tensor<1>::from_data({0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 1e-3,
                               -1e-3, 100.0, -100.0, 1e6, kNaN, kInf, -kInf},
                              dev);
}

// ================================================================ creation

TEST(VulkanOps, CreationFullZerosOnesEye) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("full/zeros/ones/empty", [](const Device& dev) -> Outs {
    return {
        Tensor<2>::full({3, 4}, 2.5, dev).raw(),
        Tensor<2>::full({3, 4}, -1.25, dev, DType::F64).raw(),
        Tensor<3>::full({2, 1, 3}, kInf, dev).raw(),
        Tensor<2, Int>::full({2, 5}, -7, dev).raw(),
        Tensor<2, Int>::full({2, 2}, int64_t{5000000000}, dev, DType::I64).raw(),
        Tensor<1, Int>::full({4}, 200, dev, DType::U8).raw(),
        Tensor<2, Bool>::full({3, 2}, true, dev).raw(),
        Tensor<2>::zeros({4, 3}, dev).raw(),
        Tensor<2>::zeros({0, 3}, dev).raw(),
        Tensor<1>::ones({7}, dev, DType::F16).raw(),
        Tensor<1>::ones({7}, dev, DType::BF16).raw(),
        Tensor<2, Int>::ones({3, 3}, dev).raw(),
        Tensor<2, Bool>::zeros({2, 3}, dev).raw(),
        Tensor<2, Bool>::ones({2, 3}, dev).raw(),
        Tensor<2>::empty({2, 3}, dev).raw(),
        Tensor<2>::eye(5, dev).raw(),
        Tensor<2, Int>::eye(3, dev).raw(),
        Tensor<2>::eye(0, dev).raw(),
    };
  });
  check("like forms of computed tensors", [](const Device& dev) -> Outs {
    auto x = uni<2>({3, 5}, 1, dev) * 2.0;
    auto xi = randint<2>({4, 2}, 2, -5, 5, dev) + 1;
    auto h = uni_as<1>(DType::F64, {6}, 3, dev);
    return {x.zeros_like().raw(),   x.ones_like().raw(),      x.full_like(3.5).raw(),
            xi.zeros_like().raw(),  xi.full_like(-2).raw(),   h.ones_like().raw(),
            h.full_like(0.1).raw(), (x.ones_like() + x).raw()};
  });
  check("eye fused into arithmetic", [](const Device& dev) -> Outs {
    auto x = uni<2>({4, 4}, 4, dev);
    auto i = Tensor<2>::eye(4, dev);
    return {(x * i + i * 3.0).raw(), (x.matmul(i) - x).raw(), (i.sum_dim(1) + x).raw()};
  });
}

TEST(VulkanOps, CreationArangeMasksGrid) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("arange", [](const Device& dev) -> Outs {
    return {Tensor<1, Int>::arange(-3, 5, dev).raw(),
            Tensor<1, Int>::arange(5, 5, dev).raw(),
            Tensor<1, Int>::arange_step(0, 10, 3, dev).raw(),
            Tensor<1, Int>::arange_step(10, 0, -3, dev).raw(),
            Tensor<1, Int>::arange_step(-7, 8, 5, dev).raw(),
            Tensor<1, Int>::arange_step(0, 1, 5, dev).raw(),
            (Tensor<1, Int>::arange(0, 12, dev) * 3 - 4).raw(),
            Tensor<1, Int>::arange(0, 12, dev).float_().raw()};
  });
  check("triangle and diagonal masks", [](const Device& dev) -> Outs {
    Outs out;
    for (int64_t d : {-2, -1, 0, 1, 3}) {
      out.push_back(Tensor<2, Bool>::tril_mask({3, 4}, d, dev).raw());
      out.push_back(Tensor<3, Bool>::triu_mask({2, 3, 4}, d, dev).raw());
      out.push_back(Tensor<3, Bool>::diag_mask({2, 4, 3}, d, dev).raw());
    }
    // A mask feeding mask_fill (the attention pattern).
    auto scores = uni<2>({5, 5}, 5, dev);
    auto masked = scores.mask_fill(Tensor<2, Bool>::triu_mask({5, 5}, 1, dev), -kInf);
    out.push_back(masked.raw());
    out.push_back(activation::softmax(masked, 1).raw());
    return out;
  });
  check("from_data forms and to_device", [](const Device& dev) -> Outs {
    auto f = Tensor<2>::from_floats({{1.5, -2.0}, {3.0, 4.25}}, dev);
    auto i = Tensor<3, Int>::from_ints({{{5}}, {{-6}}}, dev);
    auto b = Tensor<1, Bool>::from_bool({true, false, true}, dev);
    auto f64 =
        Tensor<2>::from_data(TensorData(std::vector<double>{1, 2.5, -3, 1e-300}, {2, 2}), dev);
    auto i64 =
        Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{int64_t{1} << 40, -3, 0}), dev);
    auto u8 = Tensor<1, Int>::from_data(TensorData(std::vector<uint8_t>{0, 7, 255}), dev);
    auto prim = Tensor<2>::from_primitive((f * 2.0).raw());
    auto moved = uni<2>({3, 4}, 6, Device::cpu_reference()).to_device(dev) + 1.0;
    auto empty = Tensor<2>::from_data(NestedList<double, 2>{{}, {}}, dev);
    return {f.raw(),  i.raw(),    b.raw(),     f64.raw(),  i64.raw(),
            u8.raw(), prim.raw(), moved.raw(), empty.raw()};
  });
}

// cartesian_grid is built with concat: a regression test for concat taking every element from
// its first part.
TEST(VulkanOps, CartesianGrid) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("cartesian_grid", [](const Device& dev) -> Outs {
    return {Tensor<2, Int>::cartesian_grid({2, 3}, dev).raw(),
            Tensor<3, Int>::cartesian_grid({2, 1, 3}, dev).raw(),
            Tensor<1, Int>::cartesian_grid({4}, dev).raw(),
            (Tensor<2, Int>::cartesian_grid({3, 3}, dev).sum_dim(2) * 2).raw()};
  });
}

// ================================================================ random

TEST(VulkanOps, RandomUniformAndBernoulli) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("random default/uniform/bernoulli", [](const Device& dev) -> Outs {
    seed(1234);
    auto d = Tensor<2>::random({40, 50}, Distribution::default_(), dev);
    auto u = Tensor<1>::random({1000}, Distribution::uniform(-3.0, 5.0), dev);
    auto b = Tensor<2>::random({30, 30}, Distribution::bernoulli(0.3), dev);
    auto b0 = Tensor<1>::random({10}, Distribution::bernoulli(0.0), dev);
    auto b1 = Tensor<1>::random({10}, Distribution::bernoulli(1.0), dev);
    return {d.raw(), u.raw(), b.raw(), b0.raw(), b1.raw()};
  });
  check("int_random and random_like", [](const Device& dev) -> Outs {
    seed(3);
    auto r = Tensor<1, Int>::int_random({2000}, Distribution::uniform(0, 10), dev);
    auto neg = Tensor<2, Int>::random({30, 30}, Distribution::uniform(-5, -2), dev);
    auto x = Tensor<2>::zeros({20, 10}, dev, DType::F64);
    auto rl = x.random_like(Distribution::uniform(2.0, 3.0));
    auto rf = uni<2>({7, 9}, 1, dev).random_like(Distribution::default_());
    auto ri = Tensor<2, Int>::zeros({5, 5}, dev).random_like(Distribution::uniform(-100, 100));
    return {r.raw(), neg.raw(), rl.raw(), rf.raw(), ri.raw()};
  });
  check("random fused into chains with several consumers", [](const Device& dev) -> Outs {
    seed(77);
    auto x = uni<2>({16, 24}, 2, dev);
    auto r = Tensor<2>::random({16, 24}, Distribution::uniform(0.0, 1.0), dev);
    auto keep = r.greater_elem(0.25);
    auto dropped = x.mask_fill(keep.bool_not(), 0.0) / 0.75;  // dropout
    auto noisy = x + r * 0.1;
    return {dropped.raw(), noisy.raw(), (r * r).sum_dim(1).raw(), keep.raw()};
  });
}

TEST(VulkanOps, RandomNormal) {
  EMBER_REQUIRE_GPU_DEVICE();
  check(
      "random normal",
      [](const Device& dev) -> Outs {
        seed(99);
        auto n = Tensor<1>::random({2000}, Distribution::normal(2.0, 0.5), dev);
        auto n2 = Tensor<2>::random({17, 33}, Distribution::normal(0.0, 1.0), dev);
        auto n64 =
            Tensor<2>::zeros({8, 8}, dev, DType::F64).random_like(Distribution::normal(-1.0, 3.0));
        return {n.raw(), n2.raw(), n64.raw(), (n2 * 2.0 + 1.0).exp().raw()};
      },
      testing::Tol(1e-4, 1e-4));
}

// ================================================================ float arithmetic

TEST(VulkanOps, FloatArithmeticAndBroadcast) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("binary ops with size-1 dims", [](const Device& dev) -> Outs {
    auto a = uni<3>({4, 5, 6}, 1, dev);
    auto row = uni<3>({1, 1, 6}, 2, dev);
    auto col = uni<3>({4, 1, 1}, 3, dev, 0.5, 2.0);
    auto mid = uni<3>({1, 5, 1}, 4, dev);
    return {(a + row).raw(),   (a - col).raw(),         (a * mid).raw(),   (a / col).raw(),
            (row + col).raw(), (mid * row - col).raw(), (col / row).raw(), a.add(mid).raw(),
            a.sub(row).raw(),  a.mul(col).raw(),        a.div(col).raw(),  (row - a).raw(),
            (a % col).raw(),   a.rem(col * -1.0).raw()};
  });
  check("scalar forms", [](const Device& dev) -> Outs {
    auto x = uni<2>({6, 7}, 5, dev);
    auto p = uni<2>({6, 7}, 6, dev, 0.5, 3.0);
    return {(x + 1.5).raw(),          (x - 2).raw(),
            (x * -3.0).raw(),         (x / 4.0).raw(),
            (x % 0.75).raw(),         (x % -0.75).raw(),
            (2.0 + x).raw(),          (3.0 * x).raw(),
            (1.0 - x).raw(),          (1.0 / p).raw(),
            x.add_scalar(2).raw(),    x.sub_scalar(0.5).raw(),
            x.mul_scalar(0.25).raw(), x.div_scalar(-8).raw(),
            x.rem_scalar(1.5).raw(),  (-x).raw(),
            (5 - x * 2).raw()};
  });
  check("rem sign follows divisor; division by zero gives inf/nan", [](const Device& dev) -> Outs {
    auto a = Tensor<1>::from_data({5.5, -5.5, 5.5, -5.5, 4.0, -4.0, 0.0, 1.0, -1.0, 0.0}, dev);
    auto b = Tensor<1>::from_data({2.0, 2.0, -2.0, -2.0, 2.0, 2.0, 3.0, 0.0, 0.0, 0.0}, dev);
    return {(a % b).raw(), (a / b).raw(), (a % 2.0).raw(), (a % -2.0).raw(), (1.0 / a).raw()};
  });
  check("rem with inf, NaN and zero operands", [](const Device& dev) -> Outs {
    auto a = Tensor<1>::from_data({kInf, -kInf, 5.0, kNaN, 0.0, -0.0, 6.0, -6.0}, dev);
    auto b = Tensor<1>::from_data({2.0, 3.0, 0.0, 2.0, -3.0, 3.0, 2.0, 2.0}, dev);
    return {(a % b).raw()};
  });
  check("neg/abs/sign/recip on special values", [](const Device& dev) -> Outs {
    auto s = specials(dev);
    return {s.neg().raw(), s.abs().raw(), s.sign().raw(), s.recip().raw(), (-s + 0.0).raw()};
  });
  check("pow family", [](const Device& dev) -> Outs {
    auto x = uni<2>({5, 8}, 7, dev, 0.1, 3.0);
    auto e = uni<2>({5, 8}, 8, dev, -2.0, 2.0);
    auto xn = Tensor<1>::from_data({1.0, 2.0, 3.0, -2.0, 0.0, 4.0}, dev);
    auto k = Tensor<1, Int>::from_ints({0, 2, 1, 3, 2, -1}, dev);
    return {x.powf(e).raw(),           x.powf_scalar(2.0).raw(), x.powf_scalar(0.5).raw(),
            x.powf_scalar(-1.5).raw(), x.powi_scalar(3).raw(),   x.powi_scalar(-2).raw(),
            xn.powi(k).raw(),          xn.powi_scalar(3).raw(),  xn.powi_scalar(0).raw(),
            xn.powf_scalar(3.0).raw()};
  });
  check("pow with zero, infinite and NaN operands", [](const Device& dev) -> Outs {
    auto p = Tensor<1>::from_data({0.0, 0.0, kNaN, kInf, kInf, -kInf, -kInf, 2.0, 0.5, 0.0}, dev);
    auto e = Tensor<1>::from_data({0.0, -1.0, 0.0, 2.0, -1.0, 3.0, 2.0, kInf, -kInf, 2.5}, dev);
    return {p.powf(e).raw()};
  });
  check("pow of negative bases", [](const Device& dev) -> Outs {
    auto xn = Tensor<1>::from_data({-2.0, -1.5, -3.0}, dev);
    // Integral exponents given as floats are real; fractional ones are NaN.
    return {xn.powf_scalar(2.0).raw(), xn.powf_scalar(3.0).raw(), xn.powf_scalar(0.5).raw(),
            xn.powf(Tensor<1>::from_data({2.0, 3.0, -1.0}, dev)).raw()};
  });
  check("max_pair/min_pair/clamp", [](const Device& dev) -> Outs {
    auto a = uni<2>({4, 9}, 9, dev);
    auto b = uni<2>({1, 9}, 10, dev);
    auto s = specials(dev);
    return {a.max_pair(b).raw(),     a.min_pair(b).raw(),     a.clamp(-0.5, 0.75).raw(),
            a.clamp_min(0.0).raw(),  a.clamp_max(0.25).raw(), s.clamp(-1.0, 1.0).raw(),
            s.clamp_min(-2.0).raw(), s.clamp_max(2.0).raw()};
  });
  check("max_pair/min_pair with NaN", [](const Device& dev) -> Outs {
    auto a = Tensor<1>::from_data({kNaN, 1.0, kNaN, -kInf}, dev);
    auto b = Tensor<1>::from_data({1.0, kNaN, kNaN, 0.0}, dev);
    return {a.max_pair(b).raw(), a.min_pair(b).raw()};
  });
}

TEST(VulkanOps, FloatRemByInfinity) {
  EMBER_REQUIRE_GPU_DEVICE();
  // An infinite divisor leaves the dividend (then the divisor's sign applies), as Python's %.
  check("rem by an infinite divisor", [](const Device& dev) -> Outs {
    auto a = Tensor<1>::from_data({5.0, -5.0, 1.0}, dev);
    auto b = Tensor<1>::from_data({kInf, kInf, -kInf}, dev);
    return {(a % b).raw(), (a % kInf).raw()};
  });
}

TEST(VulkanOps, PowOneToNaNAndMinusOneToInfinity) {
  EMBER_REQUIRE_GPU_DEVICE();
  // C's pow (and torch): pow(1, NaN) and pow(-1, +-inf) are 1.
  check("pow of one to NaN and of minus one to infinity", [](const Device& dev) -> Outs {
    auto p = Tensor<1>::from_data({1.0, -1.0, -1.0}, dev);
    auto e = Tensor<1>::from_data({kNaN, kInf, -kInf}, dev);
    return {p.powf(e).raw(), Tensor<1>::from_data({1.0}, dev).powf_scalar(kNaN).raw()};
  });
}

TEST(VulkanOps, FloatMath) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("transcendentals", [](const Device& dev) -> Outs {
    auto x = uni<2>({9, 11}, 11, dev, -3.0, 3.0);
    auto p = uni<2>({9, 11}, 12, dev, 0.01, 5.0);
    auto small = uni<2>({9, 11}, 13, dev, -1.2, 1.2);
    return {x.exp().raw(),  p.log().raw(),  p.log1p().raw(), x.log1p().raw(),
            p.sqrt().raw(), x.sin().raw(),  x.cos().raw(),   small.tan().raw(),
            x.tanh().raw(), x.sinh().raw(), x.cosh().raw(),  p.recip().raw()};
  });
  check(
      "erf",
      [](const Device& dev) -> Outs {
        auto x = uni<2>({9, 11}, 14, dev, -4.0, 4.0);
        return {x.erf().raw(), specials(dev).erf().raw()};
      },
      testing::Tol(1e-4, 1e-6));
  check("rounding (half to even)", [](const Device& dev) -> Outs {
    auto x = uni<2>({9, 11}, 15, dev, -10.0, 10.0);
    auto h =
        Tensor<1>::from_data({0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 0.49999997, -0.0, 7.0}, dev);
    return {x.floor().raw(), x.ceil().raw(), x.round().raw(),
            h.floor().raw(), h.ceil().raw(), h.round().raw()};
  });
  check("math on special values", [](const Device& dev) -> Outs {
    auto s = specials(dev);
    return {s.exp().raw(),   s.log().raw(),  s.log1p().raw(), s.sqrt().raw(), s.sin().raw(),
            s.cos().raw(),   s.tanh().raw(), s.floor().raw(), s.ceil().raw(), s.round().raw(),
            s.recip().raw(), s.sinh().raw(), s.cosh().raw()};
  });
  check("predicates", [](const Device& dev) -> Outs {
    auto s = specials(dev);
    auto t = Tensor<1>::from_data({0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.70001, -3.7,
                                   1.001e-3, -1e-3, 100.0, -100.0, 1e6, kNaN, kInf, kInf},
                                  dev);
    return {s.is_nan().raw(),
            s.is_inf().raw(),
            s.is_finite().raw(),
            s.is_close(t).raw(),
            s.is_close(t, 1e-3, 1e-3).raw(),
            s.bool_().raw(),
            s.contains_nan().raw(),
            t.slice({Range(0, 15)}).contains_nan().raw()};
  });
}

TEST(VulkanOps, FloatMathF64) {
  EMBER_REQUIRE_GPU_DEVICE();
  // Arithmetic stays double precision: (x + 1e-6) - x is exactly representable only in f64.
  check(
      "f64 arithmetic",
      [](const Device& dev) -> Outs {
        auto x = uni_as<2>(DType::F64, {7, 9}, 21, dev, 1.0, 100.0);
        auto y = uni_as<2>(DType::F64, {1, 9}, 22, dev, 1.0, 3.0);
        return {((x + 1e-6) - x).raw(), (x * y / 3.0).raw(), (x % y).raw(),
                x.sqrt().raw(),         (x - y).abs().raw(), x.max_dim(0).raw()};
      },
      testing::Tol(0.0, 0.0));
  // Sums in another order than the CPU's: equal to f64 rounding, not bit for bit.
  check(
      "f64 reductions",
      [](const Device& dev) -> Outs {
        auto x = uni_as<2>(DType::F64, {7, 9}, 21, dev, 1.0, 100.0);
        return {x.sum_dim(1).raw(), x.mean().raw(), x.var(1).raw()};
      },
      testing::Tol(1e-13, 0.0));
  check(
      "f64 transcendentals",
      [](const Device& dev) -> Outs {
        auto x = uni_as<2>(DType::F64, {7, 9}, 23, dev, -3.0, 3.0);
        auto p = uni_as<2>(DType::F64, {7, 9}, 24, dev, 0.01, 5.0);
        auto small = uni_as<2>(DType::F64, {7, 9}, 25, dev, -1.2, 1.2);
        return {x.exp().raw(),
                p.log().raw(),
                p.log1p().raw(),
                x.sin().raw(),
                x.cos().raw(),
                small.tan().raw(),
                x.tanh().raw(),
                x.sinh().raw(),
                x.cosh().raw(),
                p.powf_scalar(1.7).raw(),
                x.floor().raw(),
                x.round().raw(),
                activation::sigmoid(x).raw(),
                activation::softmax(x, 1).raw()};
      },
      testing::Tol(4e-15, 1e-16));
  // f64-accurate (README "Numerics"): a few ulp against the CPU's C library, over the whole
  // range of each function, special values included.
  check(
      "f64 erf",
      [](const Device& dev) -> Outs {
        auto x = uni_as<2>(DType::F64, {7, 9}, 26, dev, -7.0, 7.0);
        auto s = Tensor<1>::from_data({0.0, -0.0, 1.5, -1.5, 6.0, kInf, -kInf, kNaN}, dev)
                     .cast(DType::F64);
        return {x.erf().raw(), s.erf().raw()};
      },
      testing::Tol(4e-15, 1e-16));
  check(
      "f64 transcendentals over their whole range",
      [](const Device& dev) -> Outs {
        auto wide = uni_as<2>(DType::F64, {8, 16}, 27, dev, -740.0, 705.0);
        auto angle = uni_as<2>(DType::F64, {8, 16}, 28, dev, -1e5, 1e5);
        auto tiny = uni_as<2>(DType::F64, {8, 16}, 29, dev, -1e-6, 1e-6);
        auto ten = uni_as<2>(DType::F64, {8, 16}, 30, dev, -300.0, 300.0);
        auto pos = Tensor<2>::full({8, 16}, 10.0, dev, DType::F64).powf(ten);
        auto s = Tensor<1>::from_data({0.0, -0.0, 1.0, -1.0, 710.0, -746.0, kInf, -kInf, kNaN}, dev)
                     .cast(DType::F64);
        return {wide.exp().raw(),   angle.sin().raw(), angle.cos().raw(), tiny.exp().raw(),
                tiny.log1p().raw(), tiny.tanh().raw(), tiny.sinh().raw(), tiny.sin().raw(),
                pos.log().raw(),    s.exp().raw(),     s.log().raw(),     s.log1p().raw(),
                s.tanh().raw(),     s.sinh().raw(),    s.cosh().raw(),    s.sin().raw()};
      },
      testing::Tol(4e-15, 1e-300));
}

// ================================================================ comparisons and masks

TEST(VulkanOps, Comparisons) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("float comparisons with broadcast and NaN", [](const Device& dev) -> Outs {
    auto a = Tensor<2>::from_data({{1.0, 2.0, 3.0, kNaN}, {0.0, -1.0, kInf, 2.0}}, dev);
    auto b = Tensor<2>::from_data({{2.0, 2.0, 1.0, kNaN}}, dev);
    return {a.equal(b).raw(),          a.not_equal(b).raw(),
            a.greater(b).raw(),        a.greater_equal(b).raw(),
            a.lower(b).raw(),          a.lower_equal(b).raw(),
            a.equal_elem(2.0).raw(),   a.not_equal_elem(2).raw(),
            a.greater_elem(1.5).raw(), a.greater_equal_elem(2.0).raw(),
            a.lower_elem(0.0).raw(),   a.lower_equal_elem(kInf).raw()};
  });
  check("int and bool comparisons", [](const Device& dev) -> Outs {
    auto a = randint<2>({5, 6}, 31, -3, 3, dev);
    auto b = randint<2>({5, 1}, 32, -3, 3, dev);
    auto p = randbool<2>({5, 6}, 33, dev);
    auto q = randbool<2>({1, 6}, 34, dev);
    return {a.equal(b).raw(),         a.not_equal(b).raw(),     a.greater(b).raw(),
            a.greater_equal(b).raw(), a.lower(b).raw(),         a.lower_equal(b).raw(),
            a.equal_elem(0).raw(),    a.greater_elem(-1).raw(), a.lower_equal_elem(2).raw(),
            p.equal(q).raw(),         p.not_equal(q).raw(),     a.bool_().raw()};
  });
  check("all/any", [](const Device& dev) -> Outs {
    auto f = Tensor<2>::from_data({{1.0, 0.0, 2.0}, {2.0, 3.0, kNaN}}, dev);
    auto i = Tensor<2, Int>::from_ints({{0, 0, 0}, {0, 5, 1}}, dev);
    auto b = randbool<3>({3, 4, 5}, 35, dev, 0.8);
    auto z = Tensor<2>::zeros({0, 3}, dev);
    return {f.all().raw(),
            f.any().raw(),
            f.all_dim(0).raw(),
            f.any_dim(1).raw(),
            i.all().raw(),
            i.any().raw(),
            i.all_dim(1).raw(),
            i.any_dim(0).raw(),
            b.all().raw(),
            b.any().raw(),
            b.all_dim(2).raw(),
            b.any_dim(1).raw(),
            b.all_dim(0).raw(),
            z.all().raw(),
            z.any().raw(),
            z.all_dim(0).raw(),
            z.any_dim(0).raw(),
            z.all_dim(1).raw(),
            Tensor<1>::zeros({5}, dev).any().raw()};
  });
  check("all_close read back on the device", [](const Device& dev) -> Outs {
    auto a = Tensor<1>::from_data({1.0, 100.0, kInf}, dev);
    auto b = Tensor<1>::from_data({1.0 + 4e-6, 100.0 + 5e-4, kInf}, dev);
    auto c = Tensor<1>::from_data({1.001, 100.0, kInf}, dev);
    return {Tensor<1, Bool>::from_bool({a.all_close(b), a.all_close(c), a.all_close(c, 1e-2, 0.0),
                                        (a * 2.0).all_close(b + b)},
                                       dev)
                .raw()};
  });
}

TEST(VulkanOps, Masks) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("mask_fill and mask_where", [](const Device& dev) -> Outs {
    auto x = uni<3>({3, 4, 5}, 41, dev);
    auto v = uni<3>({3, 4, 5}, 42, dev);
    auto m = randbool<3>({3, 4, 5}, 43, dev);
    auto mrow = randbool<3>({1, 4, 1}, 44, dev);
    auto xi = randint<2>({4, 4}, 45, -9, 9, dev);
    auto vi = randint<2>({4, 4}, 46, -9, 9, dev);
    auto mi = randbool<2>({4, 4}, 47, dev);
    auto pb = randbool<2>({4, 4}, 48, dev);
    return {x.mask_fill(m, -1.0).raw(),
            x.mask_fill(mrow, kNaN).raw(),
            x.mask_where(m, v).raw(),
            x.mask_where(mrow, v).raw(),
            x.mask_fill(x.greater_elem(0.5), 0.0).raw(),
            xi.mask_fill(mi, 100).raw(),
            xi.mask_where(mi, vi).raw(),
            pb.mask_where(mi, pb.bool_not()).raw(),
            pb.mask_fill(mi, true).raw()};
  });
}

// ================================================================ reductions

TEST(VulkanOps, Reductions) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("full reductions", [](const Device& dev) -> Outs {
    auto x = uni<3>({4, 5, 6}, 51, dev);
    auto p = uni<2>({3, 4}, 52, dev, 0.5, 1.5);
    return {x.sum().raw(),  p.prod().raw(),    x.max().raw(),      x.min().raw(),
            x.mean().raw(), x.max_abs().raw(), (x * x).sum().raw()};
  });
  check("dim reductions", [](const Device& dev) -> Outs {
    auto x = uni<3>({4, 5, 6}, 53, dev);
    auto p = uni<3>({4, 5, 6}, 54, dev, 0.5, 1.5);
    Outs out;
    for (int64_t d : {0, 1, 2, -1}) {
      out.push_back(x.sum_dim(d).raw());
      out.push_back(p.prod_dim(d).raw());
      out.push_back(x.max_dim(d).raw());
      out.push_back(x.min_dim(d).raw());
      out.push_back(x.mean_dim(d).raw());
      out.push_back(x.max_abs_dim(d).raw());
      out.push_back(x.argmax(d).raw());
      out.push_back(x.argmin(d).raw());
    }
    return out;
  });
  check("with indices and ties (first index wins)", [](const Device& dev) -> Outs {
    auto t = Tensor<2>::from_data(
        {{1.0, 3.0, 3.0, 0.0}, {2.0, 2.0, 2.0, 2.0}, {-1.0, -5.0, 4.0, -5.0}}, dev);
    auto [mx, imx] = t.max_dim_with_indices(1);
    auto [mn, imn] = t.min_dim_with_indices(1);
    auto [mx0, imx0] = t.max_dim_with_indices(0);
    return {mx.raw(),  imx.raw(),  mn.raw(),          imn.raw(),
            mx0.raw(), imx0.raw(), t.argmax(1).raw(), t.argmin(0).raw()};
  });
  check("variance", [](const Device& dev) -> Outs {
    auto x = uni<3>({4, 5, 6}, 55, dev, -3.0, 5.0);
    auto [v, m] = x.var_mean(1);
    auto [vb, mb] = x.var_mean_bias(2);
    return {x.var(0).raw(), x.var_bias(1).raw(), v.raw(), m.raw(), vb.raw(),
            mb.raw(),       x.var(-1).raw()};
  });
  check("long reductions", [](const Device& dev) -> Outs {
    auto x = uni<2>({3, 1500}, 56, dev);
    auto y = uni<2>({1500, 2}, 57, dev);
    auto z = uni<1>({3999}, 58, dev);
    return {x.sum_dim(1).raw(),
            x.max_dim(1).raw(),
            x.argmax(1).raw(),
            x.mean_dim(1).raw(),
            y.sum_dim(0).raw(),
            y.min_dim(0).raw(),
            y.argmin(0).raw(),
            z.sum().raw(),
            z.mean().raw(),
            z.max().raw(),
            z.argmax(0).raw(),
            x.var(1).raw(),
            (x * 0.001 + 1.0).prod_dim(1).raw()};
  });
  check("int reductions", [](const Device& dev) -> Outs {
    auto x = randint<3>({3, 4, 5}, 59, -20, 20, dev);
    auto small = randint<2>({3, 5}, 60, -3, 3, dev);
    return {x.sum().raw(),      x.max().raw(),         x.min().raw(),      x.mean().raw(),
            x.sum_dim(1).raw(), x.max_dim(2).raw(),    x.min_dim(0).raw(), x.mean_dim(2).raw(),
            x.argmax(1).raw(),  x.argmin(2).raw(),     small.prod().raw(), small.prod_dim(1).raw(),
            x.max_abs().raw(),  x.max_abs_dim(0).raw()};
  });
  check("NaN and inf in reductions", [](const Device& dev) -> Outs {
    auto x = Tensor<1>::from_data({1.0, kNaN, 3.0}, dev);
    auto y = Tensor<2>::from_data({{1.0, kNaN, 0.5}, {2.0, 0.0, -1.0}, {kNaN, 5.0, -5.0}}, dev);
    auto w = Tensor<1>::from_data({1.0, kInf, 2.0}, dev);
    auto ww = Tensor<1>::from_data({kInf, -kInf}, dev);
    auto nn = Tensor<1>::from_data({-kInf, 0.0}, dev);
    return {x.max().raw(),      x.min().raw(),      x.sum().raw(),      x.mean().raw(),
            x.prod().raw(),     x.argmax(0).raw(),  x.argmin(0).raw(),  y.max_dim(1).raw(),
            y.min_dim(1).raw(), y.max_dim(0).raw(), y.min_dim(0).raw(), y.argmax(1).raw(),
            y.argmin(1).raw(),  y.argmax(0).raw(),  y.argmin(0).raw(),  y.sum_dim(1).raw(),
            y.max_abs().raw(),  w.sum().raw(),      w.mean().raw(),     w.max().raw(),
            ww.sum().raw(),     nn.min().raw(),     nn.argmin(0).raw(), w.argmax(0).raw()};
  });
  check("size-0 reductions", [](const Device& dev) -> Outs {
    auto z = Tensor<2>::zeros({0, 3}, dev);
    auto zi = Tensor<2, Int>::zeros({3, 0}, dev);
    return {z.sum().raw(),       z.prod().raw(),     z.sum_dim(0).raw(),
            z.prod_dim(0).raw(), z.sum_dim(1).raw(), z.max_dim(1).raw(),
            zi.sum_dim(1).raw(), zi.sum().raw(),     zi.prod_dim(1).raw()};
  });
}

// ================================================================ sorting

TEST(VulkanOps, Sorting) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("sort family with ties", [](const Device& dev) -> Outs {
    auto x = Tensor<1>::from_data({3.0, 1.0, 2.0, 1.0, 3.0, -0.5, 2.0}, dev);
    auto [v, i] = x.sort_with_indices(0);
    auto [vd, id] = x.sort_descending_with_indices(0);
    return {x.sort(0).raw(),
            x.sort_descending(0).raw(),
            x.argsort(0).raw(),
            x.argsort_descending(0).raw(),
            v.raw(),
            i.raw(),
            vd.raw(),
            id.raw()};
  });
  check("sort along dims", [](const Device& dev) -> Outs {
    auto x = uni<3>({4, 6, 5}, 61, dev);
    // Rounded values give many ties, so stability shows in the indices.
    auto r = (uni<2>({5, 40}, 62, dev, -3.0, 3.0)).round();
    Outs out;
    for (int64_t d : {0, 1, 2, -1}) {
      auto [v, i] = x.sort_with_indices(d);
      out.push_back(v.raw());
      out.push_back(i.raw());
      out.push_back(x.argsort_descending(d).raw());
    }
    for (int64_t d : {0, 1}) {
      auto [v, i] = r.sort_with_indices(d);
      auto [vd, id] = r.sort_descending_with_indices(d);
      out.insert(out.end(), {v.raw(), i.raw(), vd.raw(), id.raw()});
    }
    return out;
  });
  check("sort NaN and infinities", [](const Device& dev) -> Outs {
    auto x = Tensor<1>::from_data({3.0, kNaN, 1.0, -kInf, kInf, kNaN, -0.0, 0.0}, dev);
    auto [v, i] = x.sort_with_indices(0);
    auto [vd, id] = x.sort_descending_with_indices(0);
    return {v.raw(), i.raw(), vd.raw(), id.raw()};
  });
  check("sort ints and longer rows", [](const Device& dev) -> Outs {
    auto xi = randint<2>({3, 50}, 63, -10, 10, dev);
    auto [vi, ii] = xi.sort_with_indices(1);
    auto long_row = uni<2>({2, 1000}, 64, dev);
    auto [vl, il] = long_row.sort_with_indices(1);
    auto i64 = randint64<1>({20}, 65, -5000000000, 5000000000, dev);
    return {vi.raw(), ii.raw(),          xi.sort_descending(0).raw(), vl.raw(),
            il.raw(), i64.sort(0).raw(), i64.argsort(0).raw()};
  });
  check("topk", [](const Device& dev) -> Outs {
    auto x = uni<2>({6, 20}, 66, dev);
    auto [v, i] = x.topk_with_indices(5, 1);
    auto [v0, i0] = x.topk_with_indices(2, 0);
    auto t = Tensor<1>::from_data({1.0, 5.0, 3.0, 5.0, 2.0}, dev);
    auto [vt, it] = t.topk_with_indices(3, 0);
    auto xi = randint<2>({4, 9}, 67, -4, 4, dev);
    auto [vi, ii] = xi.topk_with_indices(3, 1);
    return {v.raw(),  i.raw(),  v0.raw(), i0.raw(), x.topk(1, 1).raw(), x.topk(20, 1).raw(),
            vt.raw(), it.raw(), vi.raw(), ii.raw()};
  });
}

// ================================================================ indexing

TEST(VulkanOps, GatherScatterSelect) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("gather", [](const Device& dev) -> Outs {
    auto x = uni<3>({3, 4, 5}, 71, dev);
    auto i0 = randint<3>({2, 4, 5}, 72, 0, 2, dev);
    auto i1 = randint<3>({3, 7, 5}, 73, 0, 3, dev);
    auto i2 = randint<3>({3, 4, 2}, 74, 0, 4, dev);
    auto xi = Tensor<1, Int>::from_ints({10, 20, 30}, dev);
    auto i64 = Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{2, 2, 0, 1}), dev);
    // An index computed on the device.
    auto am = x.argmax(2);
    return {x.gather(0, i0).raw(),          x.gather(1, i1).raw(),   x.gather(2, i2).raw(),
            x.gather(-1, am).raw(),         xi.gather(0, i64).raw(), (x.gather(2, i2) * 2.0).raw(),
            x.gather(2, x.argsort(2)).raw()};
  });
  check("scatter adds duplicates", [](const Device& dev) -> Outs {
    auto x = uni<2>({4, 6}, 75, dev);
    auto idx1 = randint<2>({4, 10}, 76, 0, 5, dev);
    auto v1 = uni<2>({4, 10}, 77, dev);
    auto idx0 = randint<2>({7, 6}, 78, 0, 3, dev);
    auto v0 = uni<2>({7, 6}, 79, dev);
    auto xi = Tensor<1, Int>::zeros({4}, dev);
    auto ii = Tensor<1, Int>::from_ints({3, 3, 0, 3, 1}, dev);
    auto vi = Tensor<1, Int>::from_ints({1, 2, 5, -4, 7}, dev);
    return {x.scatter(1, idx1, v1).raw(), x.scatter(0, idx0, v0).raw(), xi.scatter(0, ii, vi).raw(),
            (x.scatter(1, idx1, v1 * 2.0) + 1.0).raw()};
  });
  check("select and select_assign", [](const Device& dev) -> Outs {
    auto x = uni<3>({5, 4, 3}, 80, dev);
    auto i = Tensor<1, Int>::from_ints({4, 0, 0, 2}, dev);
    auto j = Tensor<1, Int>::from_ints({1, 1, 3}, dev);
    auto vals0 = uni<3>({4, 4, 3}, 81, dev);
    auto vals1 = uni<3>({5, 3, 3}, 82, dev);
    auto xi = seqi<2>({3, 4}, dev);
    return {x.select(0, i).raw(),
            x.select(1, j).raw(),
            x.select(2, Tensor<1, Int>::from_ints({2, 0}, dev)).raw(),
            x.select_assign(0, i, vals0).raw(),
            x.select_assign(1, j, vals1).raw(),
            xi.select(1, Tensor<1, Int>::from_ints({3, 0}, dev)).raw(),
            xi.select_assign(0, Tensor<1, Int>::from_ints({2, 2}, dev), seqi<2>({2, 4}, dev, 100))
                .raw(),
            (x.select(0, i) + x.select(0, i.flip({0}))).raw()};
  });
  check("one_hot", [](const Device& dev) -> Outs {
    auto xi = Tensor<1, Int>::from_ints({0, 2, 1, 4}, dev);
    auto xf = Tensor<1>::from_data({1.0, 3.0}, dev);
    auto x2 = randint<2>({3, 4}, 83, 0, 5, dev);
    return {xi.one_hot(5).raw(),
            xf.one_hot(4).raw(),
            x2.one_hot(6).raw(),
            xi.one_hot_fill(5, 5, -1, -1).raw(),
            xi.one_hot_fill(5, 5, -1, 0).raw(),
            x2.one_hot_fill(6, 2, 0, 1).raw(),
            xf.one_hot_fill(4, 0.5, 0.25, -1).raw(),
            (xi.one_hot(5).float_() * 2.0).sum_dim(0).raw()};
  });
  check("tril/triu", [](const Device& dev) -> Outs {
    auto x = uni<2>({4, 4}, 84, dev);
    auto b = uni<3>({2, 3, 5}, 85, dev);
    auto xi = seqi<2>({3, 4}, dev, 1);
    Outs out;
    for (int64_t d : {-2, -1, 0, 1, 3}) {
      out.push_back(x.tril(d).raw());
      out.push_back(x.triu(d).raw());
      out.push_back(b.tril(d).raw());
      out.push_back(b.triu(d).raw());
    }
    out.push_back(xi.tril(0).raw());
    out.push_back(xi.triu(1).raw());
    out.push_back((x.tril(0) + x.triu(1) - x).raw());
    return out;
  });
  check("argwhere and nonzero", [](const Device& dev) -> Outs {
    auto a = Tensor<2, Bool>::from_bool({{true, false, true}, {false, true, false}}, dev);
    auto lazy = uni<3>({3, 4, 5}, 86, dev).greater_elem(0.5);
    auto none = Tensor<2, Bool>::from_bool({{false, false}}, dev);
    Outs out = {a.argwhere().raw(), lazy.argwhere().raw(), none.argwhere().raw(),
                (lazy.argwhere() * 2).raw()};
    for (const auto& t : lazy.nonzero()) out.push_back(t.raw());
    for (const auto& t : none.nonzero()) out.push_back(t.raw());
    // Index values feeding a gather.
    auto v = uni<1>({30}, 87, dev);
    auto nz = v.greater_elem(0.0).nonzero();
    out.push_back(v.gather(0, nz[0]).raw());
    return out;
  });
}

// ================================================================ slicing

TEST(VulkanOps, Slicing) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("slice with steps, negative steps and negative indices", [](const Device& dev) -> Outs {
    auto x = seqf<2>({6, 7}, dev);
    auto v = uni<1>({10}, 91, dev);
    return {x.slice({Range(1, 3)}).raw(),
            x.slice({Range(1, 5), Range(0, 7, 2)}).raw(),
            x.slice({Range::all(), Range(1, 7, 3)}).raw(),
            x.slice({Range(0, 6, 4), Range::at(2)}).raw(),
            x.slice({Range(-3, -1), Range::from(-2)}).raw(),
            x.slice({Range(0, 6, -1)}).raw(),
            x.slice({Range(0, 6, -2), Range(1, 7, -3)}).raw(),
            x.slice({Range::at(-1), Range::all().with_step(-1)}).raw(),
            v.slice({Range(1, 8, -3)}).raw(),
            v.slice({Range(2, -5, -2)}).raw(),
            v.slice({Range(-3, 10, -1)}).raw(),
            v.slice({Range(4, 5, -7)}).raw(),
            x.slice({Range(2, 2)}).raw(),
            x.slice({Range::all(), Range(3, 1)}).raw(),
            x.slice_dim(1, Range(0, 7, -2)).raw(),
            x.slice_dim(-2, Range(1, 6, 2)).raw(),
            x.narrow(0, 1, 3).raw(),
            x.narrow(1, -2, 2).raw(),
            (x.slice({Range(0, 6, -2), Range(1, 7, 2)}) * 2.0 + 1.0).raw()};
  });
  check("slice_assign", [](const Device& dev) -> Outs {
    auto x = uni<2>({5, 6}, 92, dev);
    auto v = uni<2>({2, 3}, 93, dev);
    auto col = uni<2>({5, 1}, 94, dev);
    auto x1 = Tensor<1>::zeros({7}, dev);
    auto vals = Tensor<1>::from_data({10.0, 20.0, 30.0}, dev);
    auto xi = seqi<2>({3, 4}, dev);
    auto bi = Tensor<1, Bool>::from_bool({false, false, false, false}, dev);
    return {
        x.slice_assign({Range(1, 3), Range(0, 6, 2)}, v).raw(),
        x.slice_assign({Range(0, 4, -2), Range(1, 6, -2)}, v).raw(),
        x.slice_assign({Range::all(), Range::at(-1)}, col).raw(),
        x.slice_assign({Range::all(), Range(2, 3)}, col * 10.0).raw(),
        x1.slice_assign({Range(0, 7, 3)}, vals).raw(),
        x1.slice_assign({Range(0, 7, -3)}, vals).raw(),
        x1.slice_assign({Range(1, 1)}, Tensor<1>::zeros({0}, dev)).raw(),
        xi.slice_assign({Range::all(), Range(1, 2)}, Tensor<2, Int>::full({3, 1}, -7, dev)).raw(),
        bi.slice_assign({Range(1, 4, 2)}, Tensor<1, Bool>::from_bool({true, true}, dev)).raw(),
        // Values and target are views.
        x.transpose()
            .slice_assign({Range(0, 6, 5)},
                          x.slice({Range(0, 2)}).flip({1}).slice({Range::all(), Range(0, 5)}))
            .raw()};
  });
  check("slice_fill", [](const Device& dev) -> Outs {
    auto x = uni<3>({3, 4, 5}, 95, dev);
    auto xi = seqi<1>({6}, dev);
    auto b = Tensor<1, Bool>::from_bool({false, false, false}, dev);
    return {x.slice_fill({Range(0, 3, 2), Range(1, 4, 2)}, -1.0).raw(),
            x.slice_fill({Range::all(), Range(0, 4, -3), Range(-2, 5)}, kNaN).raw(),
            x.slice_fill({Range::at(1)}, 0.5).raw(),
            x.slice_fill({Range(1, 1)}, 99.0).raw(),
            xi.slice_fill({Range(-2, 6)}, 9).raw(),
            xi.slice_fill({Range(0, 6, -4)}, -1).raw(),
            b.slice_fill({Range(0, 3, 2)}, true).raw(),
            (x.slice_fill({Range::at(0)}, 0.0) * x).sum_dim(0).raw()};
  });
}

// ================================================================ shape and layout

TEST(VulkanOps, ShapeOps) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("reshape/permute/movedim/swap/transpose/flip", [](const Device& dev) -> Outs {
    auto x = uni<3>({2, 3, 4}, 101, dev);
    auto y = uni<4>({2, 3, 4, 5}, 102, dev);
    return {x.reshape({4, 6}).raw(),
            x.reshape({-1}).raw(),
            x.reshape({0, -1}).raw(),
            x.reshape<2>(Shape{1, 24}).raw(),
            x.permute({2, 0, 1}).raw(),
            x.permute({-1, 0, 1}).reshape({4, 6}).raw(),
            x.movedim(0, 2).raw(),
            y.movedim({0, 1}, {3, 1}).raw(),
            x.swap_dims(0, 2).raw(),
            x.transpose().raw(),
            x.flip({0, 2}).raw(),
            x.flip({}).raw(),
            y.flip({1, 3}).permute({3, 1, 0, 2}).raw()};
  });
  check("expand/flatten/squeeze/unsqueeze", [](const Device& dev) -> Outs {
    auto col = uni<2>({3, 1}, 103, dev);
    auto v = uni<1>({3}, 104, dev);
    auto x = uni<3>({2, 3, 4}, 105, dev);
    auto s = uni<4>({1, 2, 1, 3}, 106, dev);
    return {col.expand({3, 4}).raw(),
            v.expand({2, 3}).raw(),
            v.expand({2, -1}).raw(),
            col.expand({2, -1, 4}).raw(),
            col.expand<3>(Shape{2, 3, 5}).raw(),
            col.expand({0, 3, 1}).raw(),
            x.flatten<1>(0, 2).raw(),
            x.flatten<2>(1, 2).raw(),
            x.permute({1, 0, 2}).flatten<2>(0, 1).raw(),
            s.squeeze(0).raw(),
            s.squeeze_dims<2>({0, 2}).raw(),
            s.squeeze_dims<2>({}).raw(),
            x.unsqueeze<4>().raw(),
            x.unsqueeze_dim(1).raw(),
            x.unsqueeze_dim(-1).raw(),
            x.unsqueeze_dims<5>({0, 3}).raw()};
  });
  check("chunk/split", [](const Device& dev) -> Outs {
    auto x = uni<2>({5, 7}, 107, dev);
    Outs out;
    for (auto& t : x.chunk(3, 0)) out.push_back(t.raw());
    for (auto& t : x.chunk(4, 1)) out.push_back((t * 2.0).raw());
    for (auto& t : x.split(3, 1)) out.push_back(t.raw());
    for (auto& t : x.split_with_sizes({1, 0, 4}, 0)) out.push_back(t.raw());
    for (auto& t : seqi<1>({6}, dev).chunk(4, 0)) out.push_back(t.raw());
    return out;
  });
  check("repeat/pad", [](const Device& dev) -> Outs {
    auto x = uni<2>({3, 4}, 108, dev);
    auto xi = seqi<2>({2, 3}, dev);
    auto b = Tensor<1, Bool>::from_bool({true, false}, dev);
    return {x.repeat({2, 3}).raw(),
            x.repeat({1, 1}).raw(),
            x.repeat({0, 1}).raw(),
            xi.repeat({3, 1}).raw(),
            b.repeat({3}).raw(),
            x.repeat_dim(0, 2).raw(),
            x.repeat_dim(-1, 3).raw(),
            x.pad({{1, 2}}, 9.0).raw(),
            x.pad({{0, 1}, {2, 0}}, -1.5).raw(),
            x.pad({{-1, 1}}, 7.0).raw(),
            x.pad({{1, -1}, {-1, 0}}, 0.0).raw(),
            x.pad({{-4, 0}}, 0.0).raw(),
            x.pad({}, 5.0).raw(),
            xi.pad({{2, 1}, {1, 0}}, 7).raw(),
            (x.pad({{1, 1}, {1, 1}}, 0.0) * 2.0).sum_dim(1).raw()};
  });
}

// concat and the ops built on it (cat, stack, roll, cartesian_grid); a regression test for the
// part selection once taking every element from the first part.
TEST(VulkanOps, CatStackRoll) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("cat/stack", [](const Device& dev) -> Outs {
    auto a = uni<2>({2, 3}, 109, dev);
    auto b = uni<2>({1, 3}, 110, dev);
    auto c = uni<2>({2, 2}, 111, dev);
    auto e = Tensor<2>::zeros({2, 0}, dev);
    auto ia = seqi<1>({2}, dev);
    auto ib = Tensor<1, Int>::from_ints({-3}, dev);
    auto p = Tensor<2, Bool>::from_bool({{true}, {false}}, dev);
    auto q = Tensor<2, Bool>::from_bool({{false, false}, {true, true}}, dev);
    return {Tensor<2>::cat({a, b}, 0).raw(),
            Tensor<2>::cat({b, a, b}, 0).raw(),
            Tensor<2>::cat({a, c}, 1).raw(),
            Tensor<2>::cat({c, a}, -1).raw(),
            Tensor<2>::cat({e, a, e}, 1).raw(),
            Tensor<2>::cat({a}, 0).raw(),
            Tensor<1, Int>::cat({ia, ib, ia}, 0).raw(),
            Tensor<2, Bool>::cat({p, q}, 1).raw(),
            Tensor<2>::stack({a, a * 2.0}, 0).raw(),
            Tensor<2>::stack({a, a + 1.0, a}, 1).raw(),
            Tensor<2>::stack({a, a}, -1).raw(),
            Tensor<1, Int>::stack({ia, ia * 3}, 1).raw(),
            Tensor<1, Bool>::stack(
                {q.slice({Range::at(0)}).squeeze<1>(0), q.slice({Range::at(1)}).squeeze<1>(0)}, 0)
                .raw(),
            (Tensor<2>::cat({a, b}, 0).sum_dim(0) + 1.0).raw()};
  });
  check("roll", [](const Device& dev) -> Outs {
    auto x = uni<2>({3, 4}, 108, dev);
    auto xi = seqi<2>({2, 3}, dev);
    return {x.roll({1, -1}, {0, 1}).raw(), x.roll({7}, {1}).raw(),  x.roll({1, 1}, {0, 0}).raw(),
            x.roll_dim(-5, 0).raw(),       xi.roll_dim(1, 1).raw(), x.roll({0}, {0}).raw()};
  });
  check("views of computed values feeding cat/stack/roll", [](const Device& dev) -> Outs {
    auto a = uni<2>({6, 8}, 204, dev);
    auto b = uni<2>({6, 8}, 205, dev);
    auto c = (a * b + 1.0).exp();  // computed, then viewed
    auto t = c.transpose();
    auto f = c.flip({0, 1}).slice({Range(0, 6, 2)});
    return {Tensor<2>::cat({t, t.flip({0})}, 1).raw(), Tensor<2>::stack({f, f * 0.5}, 2).raw(),
            t.roll_dim(3, 0).raw()};
  });
}

// ================================================================ matmul

TEST(VulkanOps, Matmul) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("2-d matmul of odd sizes", [](const Device& dev) -> Outs {
    auto a = uni<2>({33, 47}, 121, dev);
    auto b = uni<2>({47, 29}, 122, dev);
    auto v = uni<2>({1, 47}, 123, dev);
    auto w = uni<2>({47, 1}, 124, dev);
    return {a.matmul(b).raw(), v.matmul(b).raw(), a.matmul(w).raw(), v.matmul(w).raw(),
            w.matmul(v).raw()};
  });
  check("batched matmul with broadcast batch dims", [](const Device& dev) -> Outs {
    auto a = uni<4>({2, 3, 4, 5}, 125, dev);
    auto b = uni<4>({2, 3, 5, 6}, 126, dev);
    auto a1 = uni<4>({2, 1, 4, 5}, 127, dev);
    auto b1 = uni<4>({1, 3, 5, 6}, 128, dev);
    auto c = uni<3>({1, 5, 7}, 129, dev);
    auto d = uni<3>({4, 3, 5}, 130, dev);
    return {a.matmul(b).raw(), a1.matmul(b1).raw(), a1.matmul(b).raw(), a.matmul(b1).raw(),
            d.matmul(c).raw()};
  });
  check("transposed and permuted operands", [](const Device& dev) -> Outs {
    auto a = uni<2>({9, 6}, 131, dev);
    auto b = uni<2>({7, 9}, 132, dev);
    auto x = uni<3>({2, 5, 4}, 133, dev);
    auto y = uni<3>({3, 5, 2}, 134, dev);
    return {a.transpose().matmul(b.transpose()).raw(),  // [6, 9] x [9, 7]
            b.matmul(a).raw(), a.transpose().matmul(a).raw(), a.matmul(a.transpose()).raw(),
            x.transpose().matmul(x).raw(), x.matmul(x.transpose()).raw(),
            // [2, 3, 5] x [2, 5, 3] (an expanded column).
            y.permute({2, 0, 1})
                .matmul(x.slice({Range::all(), Range::all(), Range::at(0)}).expand({2, 5, 3}))
                .raw(),
            // [3, 2, 4] x [3, 4, 2], both stepped slices of permuted views.
            x.swap_dims(0, 1)
                .slice({Range(0, 5, 2)})
                .matmul(x.permute({1, 2, 0}).slice({Range(1, 4)}))
                .raw()};
  });
  check("matmul of views: flip, stepped slice, expand", [](const Device& dev) -> Outs {
    auto a = uni<2>({8, 10}, 135, dev);
    auto b = uni<2>({10, 6}, 136, dev);
    auto v = uni<1>({5}, 137, dev);
    return {a.flip({1}).matmul(b).raw(),
            a.slice({Range(0, 8, -2), Range(0, 10, 2)}).matmul(b.slice({Range(1, 10, 2)})).raw(),
            v.unsqueeze_dim(1).expand({5, 10}).matmul(b).raw(),
            a.matmul(v.unsqueeze_dim(0).expand({10, 5})).raw()};
  });
  check("matmul epilogues, chains and consumers", [](const Device& dev) -> Outs {
    auto x = uni<2>({20, 30}, 138, dev);
    auto w = uni<2>({30, 17}, 139, dev);
    auto bias = uni<2>({1, 17}, 140, dev);
    auto w2 = uni<2>({17, 5}, 141, dev);
    auto h = activation::relu(x.matmul(w) + bias);
    auto y = h.matmul(w2);
    return {h.raw(), y.raw(), activation::softmax(y, 1).raw(), (h * 2.0).sum_dim(0).raw(),
            (x.matmul(w) * x.matmul(w)).raw()};
  });
  check("matmul with empty dims, ints and f64", [](const Device& dev) -> Outs {
    auto a0 = Tensor<2>::zeros({3, 0}, dev);
    auto b0 = Tensor<2>::zeros({0, 4}, dev);
    auto m0 = Tensor<2>::zeros({0, 5}, dev);
    auto ai = randint<2>({4, 6}, 142, -5, 5, dev);
    auto bi = randint<2>({6, 3}, 143, -5, 5, dev);
    auto af = uni_as<2>(DType::F64, {5, 8}, 144, dev);
    auto bf = uni_as<2>(DType::F64, {8, 3}, 145, dev);
    return {a0.matmul(b0).raw(),
            m0.matmul(uni<2>({5, 2}, 146, dev)).raw(),
            (a0.matmul(b0) + 1.0).raw(),
            ai.matmul(bi).raw(),
            ai.transpose().matmul(ai).raw(),
            af.matmul(bf).raw(),
            uni_as<3>(DType::F16, {2, 4, 8}, 147, dev)
                .matmul(uni_as<3>(DType::F16, {2, 8, 3}, 148, dev))
                .raw()};
  });
}

// ================================================================ dtypes and casts

TEST(VulkanOps, Casts) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("float casts and round trips", [](const Device& dev) -> Outs {
    auto x = uni<2>({6, 7}, 151, dev, -100.0, 100.0);
    auto big = Tensor<1>::from_data(
        {70000.0, -70000.0, 65504.0, 1e-8, 3.0e38, kNaN, kInf, 0.1, 1.0 / 3.0, 2049.0, 2051.0},
        dev);
    return {x.cast(DType::F16).raw(),
            x.cast(DType::F16).cast(DType::F32).raw(),
            x.cast(DType::BF16).raw(),
            x.cast(DType::BF16).cast(DType::F32).raw(),
            x.cast(DType::F64).raw(),
            x.cast(DType::F64).cast(DType::F32).raw(),
            Tensor<2>::from_full_precision(x, DType::F16).to_full_precision().raw(),
            big.cast(DType::F16).raw(),
            big.cast(DType::BF16).raw(),
            big.cast(DType::F16).cast(DType::F64).raw(),
            (x.cast(DType::F16) * 0.5).cast(DType::F32).raw()};
  });
  check("float <-> int <-> bool", [](const Device& dev) -> Outs {
    auto x = Tensor<1>::from_data({-2.7, -2.5, -0.5, -0.0, 0.4, 0.5, 1.5, 2.9, 100.9, -100.9}, dev);
    auto xi = randint<2>({4, 5}, 152, -300, 300, dev);
    auto b = randbool<2>({4, 5}, 153, dev);
    return {x.int_().raw(),       x.cast(DType::F64).int_().raw(),
            xi.float_().raw(),    (xi.float_() / 7.0).int_().raw(),
            b.int_().raw(),       b.float_().raw(),
            (b.int_() + 1).raw(), xi.greater_elem(0).float_().raw(),
            xi.bool_().raw()};
  });
  check("int casts and round trips", [](const Device& dev) -> Outs {
    auto xi = randint<2>({4, 5}, 154, -1000, 1000, dev);
    auto u = randint<1>({12}, 155, 0, 255, dev);
    auto w = randint64<1>({8}, 156, -(int64_t{1} << 50), int64_t{1} << 50, dev);
    return {xi.cast(DType::I64).raw(),
            xi.cast(DType::I64).cast(DType::I32).raw(),
            u.cast(DType::U8).raw(),
            u.cast(DType::U8).cast(DType::I32).raw(),
            u.cast(DType::U8).cast(DType::I64).raw(),
            w.cast(DType::I32).raw(),  // wraps
            xi.cast(DType::U8).raw(),  // wraps
            w.float_().raw(),
            u.cast(DType::U8).float_().raw(),
            (xi.cast(DType::I64) * 3000000).raw()};
  });
  check("arithmetic in f16 and bf16", [](const Device& dev) -> Outs {
    Outs out;
    for (DType t : {DType::F16, DType::BF16}) {
      auto a = uni_as<2>(t, {5, 8}, 157, dev);
      auto b = uni_as<2>(t, {1, 8}, 158, dev, 0.5, 2.0);
      out.push_back((a + b).raw());
      out.push_back((a * b - 1.0).raw());
      out.push_back((a / b).raw());
      out.push_back(a.exp().raw());
      out.push_back(a.abs().sqrt().raw());
      out.push_back(activation::gelu(a).raw());
      out.push_back(a.sum_dim(1).raw());
      out.push_back(a.max_dim(0).raw());
      out.push_back(a.argmax(1).raw());
      out.push_back(a.greater(b).raw());
      out.push_back(a.sort(1).raw());
      out.push_back(a.transpose().raw());
    }
    return out;
  });
  check("u8 and i64 arithmetic", [](const Device& dev) -> Outs {
    auto u =
        Tensor<1, Int>::from_data(TensorData(std::vector<uint8_t>{0, 7, 200, 255, 100, 3}), dev);
    auto v = Tensor<1, Int>::from_data(TensorData(std::vector<uint8_t>{1, 2, 100, 1, 100, 7}), dev);
    auto w = Tensor<1, Int>::from_data(
        TensorData(
            std::vector<int64_t>{int64_t{1} << 40, -(int64_t{1} << 35) - 5, 7, -7, 5000000000, -1}),
        dev);
    auto z = Tensor<1, Int>::from_data(
        TensorData(std::vector<int64_t>{3, 2, -2, 2, -3000000000, 4}), dev);
    return {(u + v).raw(),  // wraps
            (u * v).raw(),          (u / v).raw(),      (u % v).raw(),
            u.sum().raw(),          u.max().raw(),      (w + z).raw(),
            (w * z).raw(),          (w / z).raw(),      (w % z).raw(),
            w.sum().raw(),          w.argmax(0).raw(),  w.bitwise_right_shift_scalar(3).raw(),
            w.bitwise_and(z).raw(), (w - 1).abs().raw()};
  });
}

// ================================================================ int and bool ops

TEST(VulkanOps, IntOps) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("integer div/rem with negative operands", [](const Device& dev) -> Outs {
    auto a = Tensor<1, Int>::from_ints({7, -7, 7, -7, 6, -6, 0, 1, -1, 13, -13}, dev);
    auto b = Tensor<1, Int>::from_ints({2, 2, -2, -2, 3, 3, 5, 4, -4, -5, 5}, dev);
    return {(a / b).raw(),         (a % b).raw(),          a.div(b).raw(),  a.rem(b).raw(),
            (a / 2).raw(),         (a % 3).raw(),          (a / -3).raw(),  (a % -3).raw(),
            a.div_scalar(4).raw(), a.rem_scalar(-4).raw(), (100 / b).raw(), (b - a).raw()};
  });
  check("integer arithmetic with broadcast", [](const Device& dev) -> Outs {
    auto a = randint<3>({3, 4, 5}, 161, -50, 50, dev);
    auto b = randint<3>({1, 4, 1}, 162, 1, 9, dev);
    auto c = randint<3>({3, 1, 5}, 163, -9, -1, dev);
    return {
        (a + b).raw(),          (a - c).raw(),        (a * b).raw(),         (a / b).raw(),
        (a % b).raw(),          (a / c).raw(),        (a % c).raw(),         (a + 7).raw(),
        (a * -3).raw(),         (10 - a).raw(),       (2 * a + b * c).raw(), (-a).raw(),
        a.abs().raw(),          a.sign().raw(),       a.max_pair(c).raw(),   a.min_pair(b).raw(),
        a.clamp(-10, 10).raw(), a.clamp_min(0).raw(), a.clamp_max(-5).raw()};
  });
  check("integer powers", [](const Device& dev) -> Outs {
    auto x = Tensor<1, Int>::from_ints({2, 3, -2, 0, 1, -1, 5}, dev);
    auto k = Tensor<1, Int>::from_ints({10, 0, 3, 2, 7, 5, 3}, dev);
    return {x.powi_scalar(3).raw(), x.powi(k).raw(), x.powi_scalar(0).raw(),
            x.powi_scalar(2).raw()};
  });
  check("bitwise ops and shifts", [](const Device& dev) -> Outs {
    auto a = Tensor<1, Int>::from_ints({12, 10, -1, 0, -16, 1024, 7, 0x7fffffff}, dev);
    auto b = Tensor<1, Int>::from_ints({10, 6, 5, 3, 2, 10, 1, 4}, dev);
    auto r = randint<2>({4, 6}, 164, -100000, 100000, dev);
    auto s = randint<2>({1, 6}, 165, 0, 15, dev);
    return {a.bitwise_and(b).raw(),
            a.bitwise_or(b).raw(),
            a.bitwise_xor(b).raw(),
            a.bitwise_not().raw(),
            a.bitwise_and_scalar(6).raw(),
            a.bitwise_or_scalar(1).raw(),
            a.bitwise_xor_scalar(-5).raw(),
            a.bitwise_left_shift(b).raw(),
            a.bitwise_right_shift(b).raw(),
            a.bitwise_left_shift_scalar(4).raw(),
            a.bitwise_right_shift_scalar(1).raw(),
            r.bitwise_right_shift(s).raw(),
            r.bitwise_left_shift(s).raw(),
            r.bitwise_xor(r.bitwise_right_shift_scalar(3)).bitwise_and_scalar(0xff).raw()};
  });
}

TEST(VulkanOps, BoolOps) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("logic", [](const Device& dev) -> Outs {
    auto a = randbool<2>({5, 7}, 171, dev);
    auto b = randbool<2>({5, 7}, 172, dev);
    auto c = randbool<2>({5, 1}, 173, dev);
    return {a.bool_and(b).raw(),
            a.bool_or(b).raw(),
            a.bool_not().raw(),
            a.bool_and(c).raw(),
            a.bool_or(c.bool_not()).raw(),
            a.equal(b).bool_not().bool_or(a.bool_and(b)).raw(),
            a.transpose().bool_and(b.transpose().flip({0})).raw(),
            a.slice({Range(0, 5, -2)}).any_dim(1).raw(),
            a.int_().sum_dim(1).raw(),
            a.float_().mean_dim(0).raw(),
            a.flip({1}).expand({2, 5, 7}).bool_or(b.unsqueeze_dim(0)).raw()};
  });
}

// ================================================================ activations, grid, linalg

TEST(VulkanOps, Activations) {
  EMBER_REQUIRE_GPU_DEVICE();
  check(
      "pointwise activations",
      [](const Device& dev) -> Outs {
        auto x = uni<2>({7, 13}, 181, dev, -6.0, 6.0);
        auto big =
            Tensor<1>::from_data({-100.0, -50.0, -20.0, -1e-4, 0.0, 1e-4, 20.0, 50.0, 100.0}, dev);
        Outs out;
        for (const Tensor<2>& t : {x, big.unsqueeze_dim(0)}) {
          out.push_back(activation::gelu(t).raw());
          out.push_back(activation::relu(t).raw());
          out.push_back(activation::leaky_relu(t, 0.01).raw());
          out.push_back(activation::leaky_relu(t, -0.5).raw());
          out.push_back(activation::sigmoid(t).raw());
          out.push_back(activation::log_sigmoid(t).raw());
          out.push_back(activation::hard_sigmoid(t, 1.0 / 6, 0.5).raw());
          out.push_back(activation::hard_sigmoid(t, 0.2, 0.3).raw());
          out.push_back(activation::silu(t).raw());
          out.push_back(activation::mish(t).raw());
          out.push_back(activation::softplus(t).raw());
          out.push_back(activation::softplus(t, 2.0).raw());
          out.push_back(activation::softplus(t, 0.5).raw());
          out.push_back(activation::tanh(t).raw());
        }
        return out;
      },
      testing::Tol(1e-4, 1e-6));
  check("prelu", [](const Device& dev) -> Outs {
    auto x = uni<3>({2, 4, 5}, 182, dev);
    auto a1 = Tensor<1>::from_data({0.25}, dev);
    auto ac = uni<1>({4}, 183, dev, 0.0, 1.0);
    auto m = uni<2>({3, 4}, 184, dev);
    return {activation::prelu(x, a1).raw(), activation::prelu(x, ac).raw(),
            activation::prelu(m, ac).raw(), activation::prelu(m.transpose().transpose(), a1).raw()};
  });
  check("softmax family", [](const Device& dev) -> Outs {
    auto x = uni<3>({3, 5, 7}, 185, dev, -5.0, 5.0);
    auto big = Tensor<2>::from_data({{1000.0, 1001.0, 999.0}, {-1000.0, -1001.0, -999.0}}, dev);
    auto masked = Tensor<2>::from_data({{1.0, -kInf, 2.0}, {-kInf, -kInf, 0.0}}, dev);
    Outs out;
    for (int64_t d : {0, 1, 2, -1}) {
      out.push_back(activation::softmax(x, d).raw());
      out.push_back(activation::softmin(x, d).raw());
      out.push_back(activation::log_softmax(x, d).raw());
      out.push_back(activation::quiet_softmax(x, d).raw());
    }
    for (const Tensor<2>& t : {big, masked}) {
      out.push_back(activation::softmax(t, 1).raw());
      out.push_back(activation::log_softmax(t, 1).raw());
      out.push_back(activation::quiet_softmax(t, 1).raw());
      out.push_back(activation::softmin(t, 0).raw());
    }
    return out;
  });
}

TEST(VulkanOps, GridAndNorms) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("meshgrid", [](const Device& dev) -> Outs {
    auto a = uni<1>({3}, 191, dev);
    auto b = uni<1>({4}, 192, dev);
    auto c = uni<1>({2}, 193, dev);
    auto ia = seqi<1>({3}, dev);
    auto ib = seqi<1>({2}, dev, 10);
    Outs out;
    for (auto ix : {grid::GridIndexing::Matrix, grid::GridIndexing::Cartesian}) {
      for (auto& t : grid::meshgrid(std::array<Tensor<1>, 2>{a, b}, ix)) out.push_back(t.raw());
      for (auto& t : grid::meshgrid(std::array<Tensor<1>, 3>{a, b, c}, ix)) {
        out.push_back(t.raw());
      }
      for (auto& t : grid::meshgrid(std::array<Tensor<1, Int>, 2>{ia, ib}, ix)) {
        out.push_back((t * 2).raw());
      }
    }
    return out;
  });
  check("vector_norm", [](const Device& dev) -> Outs {
    auto x = uni<2>({6, 9}, 194, dev, -3.0, 3.0);
    auto z = x.mask_fill(x.abs().lower_elem(1.0), 0.0);  // some exact zeros
    Outs out;
    for (const auto& n :
         {linalg::Norm::l0(), linalg::Norm::l1(), linalg::Norm::l2(), linalg::Norm::linf(),
          linalg::Norm::lneg_inf(), linalg::Norm::lp(3.0), linalg::Norm::lp(0.5)}) {
      out.push_back(linalg::vector_norm(x, n, 1).raw());
      out.push_back(linalg::vector_norm(z, n, 0).raw());
    }
    return out;
  });
}

// ================================================================ composition

TEST(VulkanOps, ViewsFeedingOps) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("view chains into elementwise and reductions", [](const Device& dev) -> Outs {
    auto x = uni<3>({4, 5, 6}, 201, dev);
    auto y = uni<3>({6, 4, 5}, 202, dev);
    auto v = x.permute({2, 0, 1}).flip({0}).slice({Range(1, 6, 2)});  // [3, 4, 5]
    auto w = y.slice({Range(0, 6, -2)});                              // [3, 4, 5]
    auto e = uni<1>({5}, 203, dev).expand({3, 4, 5});
    return {(v + w).raw(),
            (v * e - w.flip({1, 2})).raw(),
            (v + w).sum_dim(2).raw(),
            v.max_dim(0).raw(),
            v.argmin(1).raw(),
            (v * e).mean().raw(),
            x.transpose().sum_dim(1).raw(),
            x.permute({1, 2, 0}).reshape({30, 4}).sum_dim(0).raw(),
            x.slice({Range::all(), Range(0, 5, -2), Range(1, 6, 2)}).exp().raw(),
            x.swap_dims(0, 2).slice({Range(0, 6, 5)}).sort(2).raw()};
  });
  check("views of computed values feeding other ops", [](const Device& dev) -> Outs {
    auto a = uni<2>({6, 8}, 204, dev);
    auto b = uni<2>({6, 8}, 205, dev);
    auto c = (a * b + 1.0).exp();  // computed, then viewed
    auto t = c.transpose();
    auto f = c.flip({0, 1}).slice({Range(0, 6, 2)});
    return {(t * 2.0).raw(),
            t.matmul(c).raw(),
            (f + c.slice({Range(1, 6, 2)})).raw(),
            t.pad({{1, 0}, {0, 2}}, -1.0).raw(),
            t.gather(1, Tensor<2, Int>::zeros({8, 3}, dev)).raw(),
            c.unsqueeze_dim(1).expand({6, 3, 8}).sum_dim(1).raw()};
  });
  check("views as matmul operands and reduction inputs", [](const Device& dev) -> Outs {
    auto x = uni<4>({2, 3, 4, 5}, 206, dev);
    auto w = uni<2>({4, 6}, 207, dev);
    auto xt = x.permute({0, 1, 3, 2});  // [2, 3, 5, 4]
    return {xt.matmul(w.unsqueeze<4>().expand({2, 3, 4, 6})).raw(),
            xt.sum_dim(3).raw(),
            xt.flip({2}).max_dim(2).raw(),
            x.permute({3, 2, 1, 0}).argmax(3).raw(),
            x.slice({Range::all(), Range(0, 3, -1)}).mean_dim(1).raw(),
            x.permute({2, 0, 3, 1}).var(2).raw()};
  });
}

TEST(VulkanOps, FusionShapes) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("long elementwise chain", [](const Device& dev) -> Outs {
    auto x = uni<2>({16, 40}, 211, dev);
    auto y = uni<2>({1, 40}, 212, dev, 0.5, 1.5);
    auto t = x;
    for (int i = 0; i < 8; ++i) t = (t * y + 0.1).tanh() * 1.5 - x * 0.25;
    auto u = t.exp().log1p().sqrt().sin() + t.cos() * t.abs();
    return {t.raw(), u.raw()};
  });
  check("diamond and several consumers", [](const Device& dev) -> Outs {
    auto x = uni<2>({12, 20}, 213, dev);
    auto a = x * 2.0 + 1.0;  // shared by everything below
    auto b = a.exp();
    auto c = a.sin();
    auto d = b * c + a;
    auto r = d.sum_dim(1);
    auto n = d / r;  // uses a reduction of its own input
    auto m = a - a.max_dim(1);
    return {a.raw(), b.raw(), d.raw(),         r.raw(),
            n.raw(), m.raw(), (c + 1.0).raw(), (n.sum_dim(0) + r.sum().reshape({1, 1})).raw(),
            a.raw()};
  });
  check("layer norm / softmax / adam written out", [](const Device& dev) -> Outs {
    auto x = uni<2>({8, 64}, 214, dev);
    auto w = uni<2>({1, 64}, 215, dev);
    auto b = uni<2>({1, 64}, 216, dev);
    auto mean = x.mean_dim(1);
    auto centered = x - mean;
    auto var = (centered * centered).mean_dim(1);
    auto ln = centered / (var + 1e-5).sqrt() * w + b;
    auto e = (ln - ln.max_dim(1)).exp();
    auto sm = e / e.sum_dim(1);
    auto p = uni<1>({500}, 217, dev);
    auto g = uni<1>({500}, 218, dev);
    auto m = uni<1>({500}, 219, dev);
    auto v = uni<1>({500}, 220, dev, 0.0, 1.0);
    m = m * 0.9 + g * 0.1;
    v = v * 0.999 + g * g * 0.001;
    p = p - (m / (1 - 0.729)) * 1e-3 / ((v / (1 - 0.997)).sqrt() + 1e-8);
    return {ln.raw(), sm.raw(), m.raw(), v.raw(), p.raw()};
  });
  check("reductions and elementwise interleaved", [](const Device& dev) -> Outs {
    auto x = uni<3>({3, 8, 10}, 221, dev);
    auto s1 = x.sum_dim(2);
    auto s2 = (x * s1).max_dim(1);
    auto s3 = (x - s2).abs().mean_dim(0);
    auto s4 = (s3 + s1.sum_dim(0)).argmax(2);
    return {s1.raw(), s2.raw(), s3.raw(), s4.raw(), (s3 * s3).sum().raw()};
  });
  check("the same input twice and outputs that are inputs", [](const Device& dev) -> Outs {
    auto x = uni<2>({5, 5}, 222, dev);
    return {(x + x).raw(), (x * x.transpose()).raw(), x.raw(), x.matmul(x).raw(),
            x.transpose().raw()};
  });
}

TEST(VulkanOps, SizeZeroAndSizeOne) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("size-0 dims through ops", [](const Device& dev) -> Outs {
    auto z = Tensor<2>::zeros({0, 3}, dev);
    auto zi = Tensor<2, Int>::zeros({0, 3}, dev);
    auto x = uni<2>({2, 3}, 231, dev);
    return {(z + 1.0).exp().raw(),
            z.transpose().raw(),
            z.flip({0, 1}).raw(),
            z.unsqueeze_dim(1).expand({0, 2, 3}).raw(),
            z.slice({Range::all(), Range(1, 3)}).raw(),
            z.pad({{0, 0}, {1, 1}}, 4.0).raw(),
            Tensor<2>::cat({z, x}, 0).raw(),
            z.sort(1).raw(),
            z.argmax(1).raw(),
            z.gather(1, Tensor<2, Int>::zeros({0, 2}, dev)).raw(),
            (zi * 3).raw(),
            zi.greater_elem(0).raw(),
            z.matmul(Tensor<2>::zeros({3, 4}, dev)).raw(),
            x.slice({Range(1, 1)}).sum_dim(0).raw(),
            x.repeat({0, 2}).raw(),
            x.cast(DType::F16).slice({Range(0, 0)}).raw()};
  });
  check("size-1 dims broadcast", [](const Device& dev) -> Outs {
    auto a = uni<4>({2, 1, 3, 1}, 232, dev);
    auto b = uni<4>({1, 4, 1, 5}, 233, dev);
    auto one = uni<4>({1, 1, 1, 1}, 234, dev);
    auto ai = randint<4>({2, 1, 3, 1}, 235, -5, 5, dev);
    auto bi = randint<4>({1, 4, 1, 5}, 236, 1, 5, dev);
    return {(a + b).raw(),        (a * b - one).raw(),
            (one / b).raw(),      (a + b).sum_dim(1).raw(),
            (ai * bi + ai).raw(), (ai / bi).raw(),
            a.greater(b).raw(),   (a + b).max_dim(3).raw(),
            one.sum().raw(),      one.squeeze_dims<1>({0, 1, 2}).raw()};
  });
}

TEST(VulkanOps, LargerShapes) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("more elements than one workgroup", [](const Device& dev) -> Outs {
    auto x = uni<2>({60, 65}, 241, dev);
    auto y = uni<2>({65, 60}, 242, dev);
    return {(x * 2.0 + y.transpose()).raw(),
            x.sum_dim(0).raw(),
            x.sum_dim(1).raw(),
            x.matmul(y).raw(),
            x.transpose().sort(1).raw(),
            x.argmax(0).raw(),
            activation::softmax(x, 0).raw()};
  });
}

TEST(VulkanOps, IndexingAndSortingOnViews) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("gather/scatter/select/sort/topk on non-contiguous views", [](const Device& dev) -> Outs {
    auto x = uni<3>({4, 5, 6}, 271, dev);
    auto xt = x.permute({2, 0, 1});  // [6, 4, 5]
    auto idx = randint<3>({6, 4, 3}, 272, 0, 4, dev);
    auto idx_e = randint<3>({1, 4, 5}, 273, 0, 5, dev).expand({6, 4, 5});
    auto sidx = randint<3>({6, 2, 5}, 274, 0, 3, dev);
    auto svals = uni<3>({6, 2, 5}, 275, dev);
    auto i3 = Tensor<1, Int>::from_ints({3, 1, 1}, dev);
    auto [tv, ti] = x.flip({2}).topk_with_indices(2, 2);
    auto mask = x.transpose().greater_elem(1.0);
    return {xt.gather(2, idx).raw(),
            xt.gather(0, idx_e).raw(),
            xt.scatter(1, sidx, svals).raw(),
            xt.scatter(1, sidx.flip({0}), svals.flip({2})).raw(),
            x.flip({0}).select(0, i3).raw(),
            x.transpose()
                .select_assign(1, Tensor<1, Int>::from_ints({0, 5, 5}, dev),
                               uni<3>({4, 3, 5}, 276, dev))
                .raw(),
            xt.sort(1).raw(),
            xt.argsort_descending(2).raw(),
            tv.raw(),
            ti.raw(),
            mask.argwhere().raw(),
            x.argmax(2).flip({1}).one_hot(6).raw()};
  });
}

TEST(VulkanOps, MoreDtypesAndReductions) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("long inner dim matmul", [](const Device& dev) -> Outs {
    auto a = uni<2>({2, 1500}, 281, dev);
    auto b = uni<2>({1500, 2}, 282, dev);
    return {a.matmul(b).raw(), a.matmul(a.transpose()).raw()};
  });
  check(
      "f16/bf16 reductions and sorting",
      [](const Device& dev) -> Outs {
        auto h = uni_as<2>(DType::F16, {4, 300}, 283, dev, -1.0, 1.0);
        auto bf = uni_as<2>(DType::BF16, {4, 50}, 284, dev, -1.0, 1.0);
        auto p = uni_as<2>(DType::F16, {3, 10}, 285, dev, 0.8, 1.2);
        return {h.sum_dim(1).raw(),  h.mean().raw(),      h.max().raw(),
                h.argmin(1).raw(),   p.prod_dim(1).raw(), bf.sort(1).raw(),
                bf.argsort(1).raw(), bf.sum_dim(0).raw(), h.clamp(-0.5, 0.5).raw(),
                (h * 1000.0).raw()};
      },
      testing::Tol(1e-2, 1e-2));
  check("i64 and u8 reductions and matmul", [](const Device& dev) -> Outs {
    auto w = randint64<2>({3, 7}, 286, -(int64_t{1} << 40), int64_t{1} << 40, dev);
    auto u = randint<2>({3, 7}, 287, 0, 255, dev).cast(DType::U8);
    auto wi = randint64<2>({7, 2}, 288, -1000, 1000, dev);
    return {w.sum().raw(),      w.sum_dim(1).raw(),
            w.max_dim(0).raw(), w.min().raw(),
            w.argmin(1).raw(),  u.max().raw(),
            u.min_dim(1).raw(), u.argmax(1).raw(),
            u.sum_dim(0).raw(), wi.transpose().matmul(wi).raw(),
            w.sort(1).raw()};
  });
  check("reductions over size-1 dims and permuted views", [](const Device& dev) -> Outs {
    auto x = uni<4>({3, 1, 4, 5}, 289, dev);
    auto p = x.permute({3, 1, 0, 2});  // [5, 1, 3, 4]
    return {x.sum_dim(1).raw(), x.max_dim(1).raw(),  x.argmax(1).raw(),
            p.sum_dim(0).raw(), p.mean_dim(3).raw(), p.min_dim(2).raw(),
            p.argmin(0).raw(),  p.var(3).raw(),      p.prod_dim(1).raw()};
  });
  check("materialized intermediates feeding later work", [](const Device& dev) -> Outs {
    auto x = uni<2>({6, 9}, 290, dev);
    auto a = x * 2.0 + 1.0;
    TensorData read = a.to_data();  // materializes `a` in the middle of the program
    auto b = a.exp() + a;
    auto c = Tensor<2>::from_data(read, dev) - a;  // exactly zero on both devices
    auto d = b.sum_dim(1);
    (void)d.to_data();
    auto e = (b / d).transpose();
    return {a.raw(), b.raw(), c.raw(), d.raw(), e.raw(), (e.matmul(b) + 1.0).raw()};
  });
}

// ================================================================ information, data, printing

TEST(VulkanOps, InformationAndPrinting) {
  EMBER_REQUIRE_GPU_DEVICE();
  check("information read back into tensors", [](const Device& dev) -> Outs {
    auto x = uni<3>({2, 3, 4}, 251, dev);
    auto y = x.permute({2, 0, 1}).slice({Range(0, 4, 2)});
    auto d = y.dims();
    std::vector<int64_t> info = {
        d[0], d[1], d[2], y.num_elements(), static_cast<int64_t>(y.dtype()), y.shape().rank()};
    auto s = y.sum();
    auto i = x.argmax(2).slice({Range::at(1), Range::at(2)});
    auto b = x.greater_elem(0.0).any();
    return {Tensor<1, Int>::from_data(TensorData(info), dev).raw(),
            Tensor<1>::from_data({s.into_scalar(), y.to_data().to_vec<double>()[3]}, dev).raw(),
            Tensor<1, Int>::from_ints({i.into_scalar()}, dev).raw(),
            Tensor<1, Bool>::from_bool({b.into_scalar()}, dev).raw(),
            Tensor<3>::from_data(y.into_data().convert(DType::F64).convert(DType::F32), dev)
                .reshape({2, 6})
                .raw(),
            // A device round trip and the rank-erased handle.
            (x * 2.0).to_device(Device::cpu_reference()).to_device(dev).raw(),
            (Tensor<3>(x.transpose().into_primitive()) + 1.0).raw()};
  });
  // Printing reads the data back; Vulkan and the CPU print the same.
  Device vk = testing::gpu_device();
  auto print = [](const Device& dev) {
    auto x = uni<2>({3, 4}, 252, dev);
    auto xi = randint<2>({2, 3}, 253, -9, 9, dev);
    auto b = randbool<1>({4}, 254, dev);
    std::ostringstream os;
    os << std::setprecision(3) << (x * 2.0) << "|" << xi.flip({1});
    return x.transpose().to_string() + "|" + x.to_string(2) + "|" + xi.to_string() + "|" +
           b.to_string() + "|" + os.str();
  };
  std::string on_vk = print(vk), on_cpu = print(Device::cpu_reference());
  // Device names replaced left to right (the search resumes after each replacement, so it ends
  // when the test device is the CPU itself; it used to loop forever there).
  auto unnamed = [](std::string s, const Device& dev) {
    const std::string name = "device: " + dev.to_string();
    for (size_t at = 0; (at = s.find(name, at)) != std::string::npos; at += 11) {
      s.replace(at, name.size(), "device: DEV");
    }
    return s;
  };
  EXPECT_EQ(unnamed(on_vk, vk), unnamed(on_cpu, Device::cpu_reference()));
  EXPECT_EQ((uni<2>({2, 2}, 255, vk) * 2.0).device(), vk);
}

// ================================================================ run-time errors on Vulkan

// Runs `body` with fusion on and with fusion off.
template <class F>
void fused_and_unfused(F&& body) {
  for (int fusion : {-1, 0}) {
    SCOPED_TRACE(fusion == 0 ? "unfused" : "fused");
    jit::set_fusion_override(fusion);
    try {
      body();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected throw: " << e.what();
    }
  }
  jit::set_fusion_override(-1);
}

// Expects `t` to read back as exactly `want`; a throw is a failure naming `what`.
template <int D, class K>
void expect_values(const std::string& what, const Tensor<D, K>& t,
                   const std::vector<double>& want) {
  try {
    EXPECT_EQ(t.to_data().template to_vec<double>(), want) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << " threw: " << e.what();
  }
}

TEST(VulkanOps, GatherOutOfRangeThrowsAtRead) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  fused_and_unfused([&] {
    auto x = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, dev);
    auto idx = Tensor<2, Int>::from_ints({{0, 2}, {1, 0}}, dev);
    auto bad = x.gather(1, idx);
    auto dependent = bad + 1.0;
    auto sibling = x * 3.0;
    expect_error([&] { dependent.to_data(); }, {"out of range"});
    expect_error([&] { bad.to_data(); }, {"gather", "index 2", "out of range", "size 2"});
    expect_error([&] { auto again = bad * 2.0; }, {"gather"});
    // `sibling` (x * 3) is fused into the gather's kernel but does not depend on it: it must not
    // fail with it.
    expect_values("sibling", sibling, {3, 6, 9, 12});
    expect_values("x + 1 after the failure", x + 1.0, {2, 3, 4, 5});
    expect_values("a good gather after the failure",
                  x.gather(1, Tensor<2, Int>::from_ints({{1, 1}, {0, 1}}, dev)), {2, 2, 3, 4});
  });
}

TEST(VulkanOps, GatherOutOfRangeSiblingReadFirst) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  fused_and_unfused([&] {
    auto x = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, dev);
    auto bad = x.gather(1, Tensor<2, Int>::from_ints({{0, 1}, {5, 0}}, dev)) * 2.0 + 1.0;
    auto sibling = x * 2.0 + 1.0;
    // Reading the healthy sibling first: it shares the failing gather's kernel and must succeed.
    expect_values("sibling read first", sibling, {3, 5, 7, 9});
    expect_error([&] { bad.to_data(); }, {"gather", "index 5", "out of range"});
    expect_values("x after the failure", x, {1, 2, 3, 4});
  });
}

TEST(VulkanOps, GatherNegativeAndComputedIndexThrows) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  fused_and_unfused([&] {
    auto x = Tensor<1>::from_data({1.0, 2.0, 3.0}, dev);
    auto neg = x.gather(0, Tensor<1, Int>::from_ints({0, -1}, dev));
    expect_error([&] { neg.to_data(); }, {"gather", "index -1", "out of range"});
    // The index is computed on the device: 0, 1, 2, 3 (3 is out of range for size 3).
    auto idx = Tensor<1, Int>::arange(0, 4, dev);
    auto bad = (x.gather(0, idx) * 2.0).exp();
    expect_error([&] { bad.to_data(); }, {"out of range"});
    expect_values("x * 2 after the failure", x * 2.0, {2, 4, 6});
    auto sel = x.select(0, Tensor<1, Int>::from_ints({2, 5}, dev));
    expect_error([&] { sel.sum().to_data(); }, {"index 5", "out of range"});
    expect_values("a good select", x.select(0, Tensor<1, Int>::from_ints({2, 0}, dev)), {3, 1});
  });
}

TEST(VulkanOps, ScatterAndSelectAssignOutOfRangeThrow) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  fused_and_unfused([&] {
    auto x = Tensor<2>::zeros({2, 3}, dev);
    auto v = Tensor<2>::ones({2, 2}, dev);
    auto bad = x.scatter(1, Tensor<2, Int>::from_ints({{0, 3}, {1, 1}}, dev), v);
    expect_error([&] { bad.to_data(); }, {"index 3", "out of range"});
    auto bad2 =
        x.select_assign(0, Tensor<1, Int>::from_ints({0, -2}, dev), Tensor<2>::ones({2, 3}, dev));
    expect_error([&] { (bad2 * 2.0).to_data(); }, {"index -2", "out of range"});
    expect_values("x + 1 after the failures", x + 1.0, {1, 1, 1, 1, 1, 1});
  });
}

TEST(VulkanOps, IntegerDivisionByZeroThrowsAtRead) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  fused_and_unfused([&] {
    auto a = Tensor<1, Int>::from_ints({4, 6, -9}, dev);
    auto b = Tensor<1, Int>::from_ints({2, 0, 3}, dev);
    auto q = a / b;
    auto sibling = a * b;
    expect_error([&] { q.to_data(); }, {"div", "division by zero"});
    // `sibling` (a * b) shares the failing division's kernel and must still succeed.
    expect_values("sibling", sibling, {8, 0, -27});
    expect_values("a good division", a / Tensor<1, Int>::from_ints({2, 3, -2}, dev), {2, 2, 4});
  });
}

TEST(VulkanOps, IntegerRemainderByZeroThrowsAtRead) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  fused_and_unfused([&] {
    auto a = Tensor<1, Int>::from_ints({4, 6, -9}, dev);
    auto b = Tensor<1, Int>::from_ints({2, 0, 3}, dev);
    auto r = a.rem_scalar(0);
    expect_error([&] { r.to_data(); }, {"rem", "division by zero"});
    auto r2 = a % (b - b);  // a divisor computed on the device
    expect_error([&] { (r2 + 1).to_data(); }, {"division by zero"});
    auto w = Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{5, 7}), dev);
    auto wz = Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{1, 0}), dev);
    expect_error([&] { (w / wz).to_data(); }, {"division by zero"});
    expect_values("a good remainder", a.rem_scalar(4), {0, 2, 3});
    expect_values("a after the failures", a + 1, {5, 7, -8});
  });
}

}  // namespace
}  // namespace ember
