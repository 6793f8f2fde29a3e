#pragma once
// The table of gradient cases shared by the finite-difference check on the CPU
// (tests/frontend/grad_check_test.cc) and the CPU-versus-GPU check (tests/jit/grad_vulkan_test.cc).
// A case is a name, host inputs and a function of the inputs written with the user API; its
// gradient is that of loss = sum(f(x) * w) with fixed weights w, so that every output element
// counts differently. Inputs are chosen away from the points where f is not differentiable.
//
// Not covered, as they have no gradient to check:
// - outputs of another kind: comparisons, is_nan/is_inf/is_finite/is_close, all/any, argmax/argmin,
//   argsort, the index halves of *_with_indices, int_(), bool_(), one_hot (its classes are cast to
//   an int), argwhere/nonzero, contains_nan, all_close;
// - creation ops, whose value does not depend on a tensor's values: zeros/ones/full/empty/eye,
//   *_like, arange, random/random_like, masks, cartesian_grid;
// - int and bool ops (bitwise, bool_and/or/not), detach() (cuts gradients by definition);
// - to_device: its result is a fresh upload, not tracked, so gradients stop there (unlike Burn,
//   where the transfer is differentiable).
// Piecewise-constant ops (sign, floor, ceil, round, the L0 norm) are checked to have zero gradient.
// The frontend has no cumsum/cumprod, so there is nothing to check for them.
#include <ember/ember.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ember::testing {

struct GradInput {
  Shape shape;
  std::vector<double> values;
};

struct GradCase {
  std::string name;  // a valid gtest parameter name: letters, digits, underscores
  std::vector<GradInput> inputs;
  std::function<RawTensor(const std::vector<RawTensor>&)> f;
  // False where the output depends on the inputs only through non-float values: no gradient
  // is reported and the finite differences are zero.
  bool connected = true;
  double h = 1e-6;    // finite-difference step
  double tol = 1e-6;  // |analytic - numeric| <= tol * (1 + |numeric|)

  GradCase disconnected() && {
    connected = false;
    return std::move(*this);
  }
  GradCase step(double step, double tolerance) && {
    h = step;
    tol = tolerance;
    return std::move(*this);
  }
};

inline void PrintTo(const GradCase& c, std::ostream* os) { *os << c.name; }

// ---------------------------------------------------------------- inputs

// Distinct values over [lo, hi): one per cell of an even grid, placed in the middle half of its
// cell and shuffled. No two values are within a quarter cell of each other (so no ties for
// max/sort), and none is near a cell boundary: kinks put on boundaries are avoided (with 8 values
// over [-2, 2], multiples of 0.5; 0 for any even count over a symmetric range).
inline GradInput spread(Shape s, uint32_t seed, double lo = -2.0, double hi = 2.0) {
  int64_t n = s.numel();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> jitter(0.25, 0.75);
  double cell = (hi - lo) / static_cast<double>(n);
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = lo + (static_cast<double>(i) + jitter(gen)) * cell;
  std::shuffle(v.begin(), v.end(), gen);
  return {std::move(s), std::move(v)};
}

// Distinct magnitudes over [lo, hi) with pseudo-random signs: away from zero.
inline GradInput away_from_zero(Shape s, uint32_t seed, double lo = 0.5, double hi = 2.0) {
  GradInput in = spread(std::move(s), seed, lo, hi);
  std::mt19937 gen(seed + 1000);
  for (double& x : in.values) {
    if (gen() % 2 == 1) x = -x;
  }
  return in;
}

inline GradInput positive(Shape s, uint32_t seed) { return spread(std::move(s), seed, 0.5, 2.0); }

// The loss weights for an output of n elements: fixed, varied, none near zero.
inline std::vector<double> grad_weights(int64_t n) {
  std::mt19937 gen(12345);
  std::uniform_real_distribution<double> mag(0.25, 1.5);
  std::vector<double> w(static_cast<size_t>(n));
  for (double& x : w) x = (gen() % 2 == 1 ? -1.0 : 1.0) * mag(gen);
  return w;
}

inline RawTensor upload(const std::vector<double>& values, const Shape& shape, DType dtype,
                        const Device& dev) {
  return detail::raw_from_data(TensorData(values, shape).convert(dtype), dev);
}

// ---------------------------------------------------------------- case builders
// f takes typed tensors (Tensor<D>) and returns any tensor.

template <int D, class F>
GradCase case1(std::string name, GradInput x, F f) {
  return {std::move(name), {std::move(x)}, [f](const std::vector<RawTensor>& in) {
            return f(Tensor<D>(in[0])).raw();
          }};
}

template <int D1, int D2, class F>
GradCase case2(std::string name, GradInput a, GradInput b, F f) {
  return {std::move(name), {std::move(a), std::move(b)}, [f](const std::vector<RawTensor>& in) {
            return f(Tensor<D1>(in[0]), Tensor<D2>(in[1])).raw();
          }};
}

template <int D1, int D2, int D3, class F>
GradCase case3(std::string name, GradInput a, GradInput b, GradInput c, F f) {
  return {std::move(name),
          {std::move(a), std::move(b), std::move(c)},
          [f](const std::vector<RawTensor>& in) {
            return f(Tensor<D1>(in[0]), Tensor<D2>(in[1]), Tensor<D3>(in[2])).raw();
          }};
}

// ---------------------------------------------------------------- the cases

namespace grad_cases_detail {

using T1 = Tensor<1>;
using T2 = Tensor<2>;
using T3 = Tensor<3>;
using T4 = Tensor<4>;
using I1 = Tensor<1, Int>;
using I2 = Tensor<2, Int>;
using I3 = Tensor<3, Int>;
using B2 = Tensor<2, Bool>;

inline void add_elementwise(std::vector<GradCase>& c) {
  // Tensor-tensor arithmetic, equal shapes and broadcast.
  c.push_back(
      case2<2, 2>("add", spread({2, 3}, 1), spread({2, 3}, 2), [](T2 a, T2 b) { return a + b; }));
  c.push_back(case2<2, 2>("add_broadcast_row", spread({2, 3}, 3), spread({1, 3}, 4),
                          [](T2 a, T2 b) { return a.add(b); }));
  c.push_back(case2<2, 2>("add_broadcast_both", spread({2, 1}, 5), spread({1, 3}, 6),
                          [](T2 a, T2 b) { return a + b; }));
  c.push_back(
      case2<2, 2>("sub", spread({2, 3}, 7), spread({2, 3}, 8), [](T2 a, T2 b) { return a - b; }));
  c.push_back(case2<2, 2>("sub_broadcast_col", spread({2, 3}, 9), spread({2, 1}, 10),
                          [](T2 a, T2 b) { return a.sub(b); }));
  c.push_back(
      case2<2, 2>("mul", spread({2, 3}, 11), spread({2, 3}, 12), [](T2 a, T2 b) { return a * b; }));
  c.push_back(case2<2, 2>("mul_broadcast_both", spread({2, 1}, 13), spread({1, 3}, 14),
                          [](T2 a, T2 b) { return a.mul(b); }));
  c.push_back(case2<3, 3>("mul_broadcast_3d", spread({2, 1, 3}, 15), spread({1, 2, 1}, 16),
                          [](T3 a, T3 b) { return a * b; }));
  c.push_back(case2<2, 2>("div", spread({2, 3}, 17), away_from_zero({2, 3}, 18),
                          [](T2 a, T2 b) { return a / b; }));
  c.push_back(case2<2, 2>("div_broadcast_row", spread({2, 3}, 19), away_from_zero({1, 3}, 20),
                          [](T2 a, T2 b) { return a.div(b); }));
  c.push_back(case2<2, 2>("rem", spread({2, 3}, 21, -3, 3), away_from_zero({2, 3}, 22),
                          [](T2 a, T2 b) { return a % b; }));
  c.push_back(case2<2, 2>("rem_broadcast", spread({2, 3}, 23, -3, 3), positive({2, 1}, 24),
                          [](T2 a, T2 b) { return a.rem(b); }));
  c.push_back(case2<2, 2>("powf", positive({2, 3}, 25), spread({2, 3}, 26),
                          [](T2 a, T2 b) { return a.powf(b); }));
  c.push_back(case2<2, 2>("powf_broadcast", positive({2, 3}, 27), spread({1, 3}, 28),
                          [](T2 a, T2 b) { return a.powf(b); }));
  c.push_back(case2<2, 2>("max_pair", spread({2, 3}, 29), spread({2, 3}, 30),
                          [](T2 a, T2 b) { return a.max_pair(b); }));
  c.push_back(case2<2, 2>("min_pair", spread({2, 3}, 31), spread({2, 3}, 32),
                          [](T2 a, T2 b) { return a.min_pair(b); }));
  c.push_back(case2<2, 2>("max_pair_broadcast", spread({2, 3}, 33), spread({1, 3}, 34),
                          [](T2 a, T2 b) { return a.max_pair(b); }));
  c.push_back(case2<2, 2>("min_pair_broadcast", spread({2, 3}, 35), spread({2, 1}, 36),
                          [](T2 a, T2 b) { return a.min_pair(b); }));

  // Scalar forms, both orders.
  c.push_back(case1<2>("add_scalar", spread({2, 3}, 40), [](T2 x) { return x + 1.5; }));
  c.push_back(case1<2>("scalar_add", spread({2, 3}, 41), [](T2 x) { return 1.5 + x; }));
  c.push_back(case1<2>("sub_scalar", spread({2, 3}, 42), [](T2 x) { return x.sub_scalar(0.75); }));
  c.push_back(case1<2>("scalar_sub", spread({2, 3}, 43), [](T2 x) { return 2.0 - x; }));
  c.push_back(case1<2>("mul_scalar", spread({2, 3}, 44), [](T2 x) { return x * -2.5; }));
  c.push_back(case1<2>("scalar_mul", spread({2, 3}, 45), [](T2 x) { return 3.0 * x; }));
  c.push_back(case1<2>("div_scalar", spread({2, 3}, 46), [](T2 x) { return x / 0.8; }));
  c.push_back(case1<2>("scalar_div", away_from_zero({2, 3}, 47), [](T2 x) { return 3.0 / x; }));
  // Multiples of 0.5 are cell boundaries of spread({2, 4}): no jump of x % 0.5 is near.
  c.push_back(case1<2>("rem_scalar", spread({2, 4}, 48), [](T2 x) { return x % 0.5; }));
  c.push_back(
      case1<2>("powf_scalar", positive({2, 3}, 49), [](T2 x) { return x.powf_scalar(2.5); }));
  c.push_back(case1<2>("powf_scalar_negative", positive({2, 3}, 50),
                       [](T2 x) { return x.powf_scalar(-1.5); }));
  c.push_back(case1<2>("powi_scalar", spread({2, 3}, 51), [](T2 x) { return x.powi_scalar(3); }));
  c.push_back(case1<2>("powi", spread({2, 3}, 52), [](T2 x) {
    return x.powi(I2::from_ints({{2, 3, 1}, {0, 4, 2}}, x.device()));
  }));

  // Unary math.
  c.push_back(case1<2>("neg", spread({2, 3}, 60), [](T2 x) { return -x; }));
  c.push_back(case1<2>("abs", away_from_zero({2, 3}, 61), [](T2 x) { return x.abs(); }));
  c.push_back(case1<2>("exp", spread({2, 3}, 62), [](T2 x) { return x.exp(); }));
  c.push_back(case1<2>("log", positive({2, 3}, 63), [](T2 x) { return x.log(); }));
  c.push_back(case1<2>("log1p", spread({2, 3}, 64, -0.5, 2), [](T2 x) { return x.log1p(); }));
  c.push_back(case1<2>("sqrt", positive({2, 3}, 65), [](T2 x) { return x.sqrt(); }));
  c.push_back(case1<2>("sin", spread({2, 3}, 66, -3, 3), [](T2 x) { return x.sin(); }));
  c.push_back(case1<2>("cos", spread({2, 3}, 67, -3, 3), [](T2 x) { return x.cos(); }));
  c.push_back(case1<2>("tan", spread({2, 3}, 68, -1.2, 1.2), [](T2 x) { return x.tan(); }));
  c.push_back(case1<2>("tanh", spread({2, 3}, 69), [](T2 x) { return x.tanh(); }));
  c.push_back(case1<2>("sinh", spread({2, 3}, 70), [](T2 x) { return x.sinh(); }));
  c.push_back(case1<2>("cosh", spread({2, 3}, 71), [](T2 x) { return x.cosh(); }));
  c.push_back(case1<2>("erf", spread({2, 3}, 72), [](T2 x) { return x.erf(); }));
  c.push_back(case1<2>("recip", away_from_zero({2, 3}, 73), [](T2 x) { return x.recip(); }));
  c.push_back(case1<2>("sign", away_from_zero({2, 3}, 74), [](T2 x) { return x.sign(); }));
  c.push_back(case1<2>("floor", spread({2, 4}, 75), [](T2 x) { return x.floor(); }));
  c.push_back(case1<2>("ceil", spread({2, 4}, 76), [](T2 x) { return x.ceil(); }));
  c.push_back(case1<2>("round", spread({2, 4}, 77), [](T2 x) { return x.round(); }));
  // A round trip through f32: the gradient passes the casts unchanged (a larger step, as f32
  // rounding makes the differences noisy).
  c.push_back(case1<2>("cast_f32_and_back", spread({2, 3}, 78), [](T2 x) {
                return x.cast(DType::F32).cast(x.dtype()) * 1.5;
              }).step(1e-3, 1e-3));

  // To f32 and left there: the output and loss are f32, so the step is larger still.
  c.push_back(case1<2>("to_full_precision", spread({2, 3}, 79), [](T2 x) {
                return x.to_full_precision() * 1.5;
              }).step(1e-2, 1e-3));

  // Clamps: bounds on cell boundaries of spread({2, 4}).
  c.push_back(case1<2>("clamp", spread({2, 4}, 80), [](T2 x) { return x.clamp(-0.5, 1.0); }));
  c.push_back(case1<2>("clamp_min", spread({2, 4}, 81), [](T2 x) { return x.clamp_min(0.0); }));
  c.push_back(case1<2>("clamp_max", spread({2, 4}, 82), [](T2 x) { return x.clamp_max(0.5); }));

  // Masks and triangles.
  c.push_back(case1<2>("mask_fill", spread({2, 3}, 83), [](T2 x) {
    return x.mask_fill(B2::from_bool({{true, false, true}, {false, false, true}}, x.device()), 0.5);
  }));
  c.push_back(case1<2>("mask_fill_broadcast", spread({2, 3}, 84), [](T2 x) {
    return x.mask_fill(B2::from_bool({{false, true, false}}, x.device()), -1.0);
  }));
  c.push_back(case2<2, 2>("mask_where", spread({2, 3}, 85), spread({2, 3}, 86), [](T2 x, T2 v) {
    return x.mask_where(B2::from_bool({{true, false, true}, {false, true, true}}, x.device()), v);
  }));
  c.push_back(case2<2, 2>(
      "mask_where_broadcast_values", spread({2, 3}, 87), spread({1, 3}, 88), [](T2 x, T2 v) {
        return x.mask_where(B2::from_bool({{true, false, true}, {false, true, false}}, x.device()),
                            v);
      }));
  c.push_back(case1<2>("tril", spread({3, 3}, 89), [](T2 x) { return x.tril(0); }));
  c.push_back(case1<2>("triu", spread({3, 4}, 90), [](T2 x) { return x.triu(1); }));
}

inline void add_reductions(std::vector<GradCase>& c) {
  c.push_back(case1<2>("sum", spread({2, 3}, 100), [](T2 x) { return x.sum(); }));
  c.push_back(case1<2>("sum_dim0", spread({2, 3}, 101), [](T2 x) { return x.sum_dim(0); }));
  c.push_back(case1<3>("sum_dim1_3d", spread({2, 3, 2}, 102), [](T3 x) { return x.sum_dim(1); }));
  c.push_back(case1<3>("mean", spread({2, 3, 2}, 103), [](T3 x) { return x.mean(); }));
  c.push_back(case1<2>("mean_dim", spread({2, 3}, 104), [](T2 x) { return x.mean_dim(-1); }));
  c.push_back(
      case1<2>("prod", away_from_zero({2, 3}, 105, 0.5, 1.5), [](T2 x) { return x.prod(); }));
  c.push_back(case1<2>("prod_dim", away_from_zero({2, 3}, 106, 0.5, 1.5),
                       [](T2 x) { return x.prod_dim(1); }));
  c.push_back(case1<2>("max", spread({2, 3}, 107), [](T2 x) { return x.max(); }));
  c.push_back(case1<2>("min", spread({2, 3}, 108), [](T2 x) { return x.min(); }));
  c.push_back(case1<2>("max_dim", spread({3, 4}, 109), [](T2 x) { return x.max_dim(1); }));
  c.push_back(case1<3>("min_dim_3d", spread({2, 3, 2}, 110), [](T3 x) { return x.min_dim(1); }));
  c.push_back(case1<2>("max_abs", away_from_zero({2, 3}, 111), [](T2 x) { return x.max_abs(); }));
  c.push_back(
      case1<2>("max_abs_dim", away_from_zero({2, 3}, 112), [](T2 x) { return x.max_abs_dim(0); }));
  c.push_back(case1<2>("max_dim_with_indices", spread({3, 4}, 113),
                       [](T2 x) { return x.max_dim_with_indices(0).first; }));
  c.push_back(case1<2>("min_dim_with_indices", spread({3, 4}, 114),
                       [](T2 x) { return x.min_dim_with_indices(1).first; }));
  c.push_back(case1<2>("var", spread({2, 4}, 115), [](T2 x) { return x.var(1); }));
  c.push_back(case1<2>("var_bias", spread({3, 2}, 116), [](T2 x) { return x.var_bias(0); }));
  c.push_back(case1<2>("var_mean", spread({2, 4}, 117), [](T2 x) {
    auto [v, m] = x.var_mean(1);
    return T2::cat({v, m}, 1);
  }));
  c.push_back(case1<2>("var_mean_bias", spread({2, 4}, 118), [](T2 x) {
    auto [v, m] = x.var_mean_bias(1);
    return T2::cat({v, m}, 1);
  }));
}

inline void add_sorting(std::vector<GradCase>& c) {
  c.push_back(case1<2>("sort", spread({2, 4}, 120), [](T2 x) { return x.sort(1); }));
  c.push_back(case1<2>("sort_dim0", spread({3, 2}, 121), [](T2 x) { return x.sort(0); }));
  c.push_back(case1<3>("sort_3d_middle", spread({2, 3, 2}, 122), [](T3 x) { return x.sort(1); }));
  c.push_back(
      case1<2>("sort_descending", spread({2, 4}, 123), [](T2 x) { return x.sort_descending(1); }));
  c.push_back(case1<2>("sort_with_indices", spread({2, 4}, 124),
                       [](T2 x) { return x.sort_with_indices(1).first; }));
  c.push_back(case1<2>("sort_descending_with_indices", spread({3, 2}, 125),
                       [](T2 x) { return x.sort_descending_with_indices(0).first; }));
  c.push_back(case1<2>("topk", spread({2, 5}, 126), [](T2 x) { return x.topk(2, 1); }));
  c.push_back(case1<2>("topk_with_indices", spread({4, 2}, 127),
                       [](T2 x) { return x.topk_with_indices(3, 0).first; }));
}

inline void add_shape(std::vector<GradCase>& c) {
  c.push_back(case1<2>("reshape", spread({2, 3}, 130), [](T2 x) { return x.reshape({3, 2}); }));
  c.push_back(case1<2>("reshape_infer", spread({2, 3}, 131), [](T2 x) {
    return x.reshape({-1, 2, 1});
  }));
  c.push_back(case1<3>("flatten", spread({2, 3, 2}, 132), [](T3 x) { return x.flatten<2>(1, 2); }));
  c.push_back(case1<3>("squeeze", spread({2, 1, 3}, 133), [](T3 x) { return x.squeeze(1); }));
  c.push_back(case1<3>("squeeze_dims", spread({1, 3, 1}, 134), [](T3 x) {
    return x.squeeze_dims<1>({0, 2});
  }));
  c.push_back(case1<2>("unsqueeze", spread({2, 3}, 135), [](T2 x) { return x.unsqueeze<4>(); }));
  c.push_back(
      case1<2>("unsqueeze_dim", spread({2, 3}, 136), [](T2 x) { return x.unsqueeze_dim(1); }));
  c.push_back(case1<2>("unsqueeze_dims", spread({2, 3}, 137), [](T2 x) {
    return x.unsqueeze_dims<4>({0, 2});
  }));
  c.push_back(case1<3>("permute", spread({2, 3, 2}, 138), [](T3 x) {
    return x.permute({2, 0, 1});
  }));
  c.push_back(case1<3>("movedim", spread({2, 3, 2}, 139), [](T3 x) { return x.movedim(0, 2); }));
  c.push_back(case1<3>("movedim_several", spread({2, 3, 2}, 181), [](T3 x) {
    return x.movedim({0, 1}, {2, 0});
  }));
  c.push_back(
      case1<3>("swap_dims", spread({2, 3, 2}, 140), [](T3 x) { return x.swap_dims(0, 1); }));
  c.push_back(case1<2>("transpose", spread({2, 3}, 141), [](T2 x) { return x.transpose(); }));
  c.push_back(case1<3>("transpose_3d", spread({2, 3, 2}, 142), [](T3 x) { return x.transpose(); }));
  c.push_back(case1<2>("flip", spread({2, 3}, 143), [](T2 x) { return x.flip({1}); }));
  c.push_back(case1<3>("flip_two_dims", spread({2, 3, 2}, 144), [](T3 x) {
    return x.flip({0, 2});
  }));
  c.push_back(case1<2>("narrow", spread({3, 4}, 145), [](T2 x) { return x.narrow(1, 1, 2); }));
  // q, k and v cut from one tensor side by side (their gradients joined by a concatenation),
  // and two slices with a gap between them (a sum of pads).
  c.push_back(case1<2>("narrows_side_by_side", spread({3, 6}, 144), [](T2 x) {
    T2 q = x.narrow(1, 0, 2), k = x.narrow(1, 2, 2), v = x.narrow(1, 4, 2);
    return q * k + v.exp();
  }));
  c.push_back(case1<2>("narrows_with_a_gap", spread({3, 7}, 143), [](T2 x) {
    return x.narrow(1, 1, 2) * x.narrow(1, 4, 2) + x.narrow(1, 2, 2);
  }));
  c.push_back(case1<2>("slice", spread({3, 4}, 146), [](T2 x) {
    return x.slice({Range(1, 3), Range(0, 3)});
  }));
  c.push_back(case1<2>("slice_steps", spread({4, 5}, 147), [](T2 x) {
    return x.slice({Range(0, 4, 2), Range(1, 5, 3)});
  }));
  c.push_back(case1<2>("slice_step_to_end", spread({3, 7}, 148), [](T2 x) {
    return x.slice({Range::all(), Range(0, 7, 3)});
  }));
  c.push_back(case1<2>("slice_negative_steps", spread({3, 5}, 149), [](T2 x) {
    return x.slice({Range(0, 3, -1), Range(0, 5, -2)});
  }));
  c.push_back(case1<2>("slice_negative_indices", spread({3, 4}, 150), [](T2 x) {
    return x.slice({Range::from(-2), Range(-3, -1)});
  }));
  c.push_back(case1<2>("slice_dim", spread({3, 4}, 151),
                       [](T2 x) { return x.slice_dim(1, Range(1, 4, 2)); }));
  c.push_back(case2<2, 2>("slice_assign", spread({3, 4}, 152), spread({2, 2}, 153), [](T2 x, T2 v) {
    return x.slice_assign({Range(1, 3), Range(1, 3)}, v);
  }));
  c.push_back(
      case2<2, 2>("slice_assign_steps", spread({3, 5}, 154), spread({2, 2}, 155), [](T2 x, T2 v) {
        return x.slice_assign({Range(0, 3, 2), Range(1, 5, 2)}, v);
      }));
  c.push_back(case2<2, 2>("slice_assign_negative_step", spread({3, 4}, 156), spread({3, 2}, 157),
                          [](T2 x, T2 v) {
                            return x.slice_assign({Range::all(), Range(0, 4, -2)}, v);
                          }));
  c.push_back(case1<2>("slice_fill", spread({3, 4}, 158), [](T2 x) {
    return x.slice_fill({Range(0, 2), Range(1, 4, 2)}, 0.25);
  }));
  c.push_back(case1<2>("expand", spread({1, 3}, 159), [](T2 x) { return x.expand({2, 3}); }));
  c.push_back(case1<1>("expand_new_dims", spread({3}, 160), [](T1 x) {
    return x.expand({2, 2, 3});
  }));
  c.push_back(case1<3>("expand_middle", spread({2, 1, 3}, 161), [](T3 x) {
    return x.expand({2, 4, 3});
  }));
  c.push_back(case1<2>("repeat", spread({2, 3}, 162), [](T2 x) { return x.repeat({2, 2}); }));
  c.push_back(case1<2>("repeat_dim", spread({2, 3}, 163), [](T2 x) { return x.repeat_dim(0, 3); }));
  c.push_back(case1<2>("roll", spread({3, 4}, 164), [](T2 x) { return x.roll({1, -1}, {0, 1}); }));
  c.push_back(case1<2>("roll_dim", spread({3, 4}, 165), [](T2 x) { return x.roll_dim(3, 1); }));
  c.push_back(case2<2, 2>("cat_dim0", spread({2, 3}, 166), spread({1, 3}, 167), [](T2 a, T2 b) {
    return T2::cat({a, b}, 0);
  }));
  c.push_back(
      case2<2, 2>("cat_dim1_reused", spread({2, 3}, 168), spread({2, 1}, 169), [](T2 a, T2 b) {
        return T2::cat({a, b, a}, 1);
      }));
  c.push_back(case2<2, 2>("stack_dim0", spread({2, 3}, 170), spread({2, 3}, 171), [](T2 a, T2 b) {
    return T2::stack({a, b}, 0);
  }));
  c.push_back(case2<2, 2>("stack_dim1", spread({2, 3}, 172), spread({2, 3}, 173), [](T2 a, T2 b) {
    return T2::stack({a, b}, 1);
  }));
  c.push_back(case2<2, 2>("stack_last", spread({2, 3}, 174), spread({2, 3}, 175), [](T2 a, T2 b) {
    return T2::stack({b, a}, -1);
  }));
  c.push_back(case1<2>("chunk", spread({2, 5}, 176), [](T2 x) {
    auto parts = x.chunk(3, 1);  // sizes 2, 2, 1
    return T2::cat({parts[2], parts[0] * parts[1]}, 1);
  }));
  c.push_back(case1<2>("split", spread({5, 2}, 177), [](T2 x) {
    auto parts = x.split(2, 0);  // sizes 2, 2, 1
    return parts[1] * parts[0].exp() + parts[2];
  }));
  c.push_back(case1<2>("split_with_sizes", spread({2, 6}, 178), [](T2 x) {
    auto parts = x.split_with_sizes({1, 3, 2}, 1);
    return T2::cat({parts[2], parts[0] * 2.0, parts[1].sin()}, 1);
  }));
  c.push_back(case1<2>("pad", spread({2, 3}, 179), [](T2 x) {
    return x.pad({{1, 2}, {2, 0}}, 0.5);
  }));
  c.push_back(case1<2>("pad_crop", spread({3, 4}, 180), [](T2 x) {
    return x.pad({{-1, 2}, {1, -1}}, -1.0);
  }));
}

inline void add_indexing(std::vector<GradCase>& c) {
  // Repeated indices: their gradients add up.
  c.push_back(case1<2>("gather_dim1", spread({2, 3}, 190), [](T2 x) {
    return x.gather(1, I2::from_ints({{2, 0, 2, 1}, {1, 1, 0, 0}}, x.device()));
  }));
  c.push_back(case1<2>("gather_dim0", spread({3, 2}, 191), [](T2 x) {
    return x.gather(0, I2::from_ints({{2, 0}, {2, 2}}, x.device()));
  }));
  c.push_back(case2<2, 2>("scatter", spread({2, 3}, 192), spread({2, 2}, 193), [](T2 x, T2 v) {
    return x.scatter(1, I2::from_ints({{0, 0}, {2, 1}}, x.device()), v);
  }));
  c.push_back(case2<3, 3>(
      "scatter_3d_dim0", spread({2, 2, 2}, 194), spread({3, 2, 2}, 195), [](T3 x, T3 v) {
        return x.scatter(
            0, I3::from_ints({{{1, 0}, {0, 0}}, {{1, 1}, {0, 1}}, {{0, 1}, {1, 1}}}, x.device()),
            v);
      }));
  c.push_back(case1<2>("select", spread({3, 2}, 196), [](T2 x) {
    return x.select(0, I1::from_ints({2, 0, 2}, x.device()));
  }));
  c.push_back(case1<2>("select_dim1", spread({2, 4}, 197), [](T2 x) {
    return x.select(1, I1::from_ints({3, 1}, x.device()));
  }));
  c.push_back(
      case2<2, 2>("select_assign", spread({3, 2}, 198), spread({2, 2}, 199), [](T2 x, T2 v) {
        return x.select_assign(0, I1::from_ints({1, 1}, x.device()), v);
      }));
  c.push_back(
      case2<2, 2>("select_assign_dim1", spread({2, 4}, 200), spread({2, 3}, 201), [](T2 x, T2 v) {
        return x.select_assign(1, I1::from_ints({3, 0, 2}, x.device()), v);
      }));
}

inline void add_matmul(std::vector<GradCase>& c) {
  c.push_back(case2<2, 2>("matmul", spread({2, 3}, 210), spread({3, 4}, 211),
                          [](T2 a, T2 b) { return a.matmul(b); }));
  c.push_back(case2<3, 3>("matmul_batched", spread({2, 2, 3}, 212), spread({2, 3, 2}, 213),
                          [](T3 a, T3 b) { return a.matmul(b); }));
  c.push_back(case2<3, 3>("matmul_broadcast_lhs", spread({1, 2, 3}, 214), spread({3, 3, 2}, 215),
                          [](T3 a, T3 b) { return a.matmul(b); }));
  c.push_back(case2<3, 3>("matmul_broadcast_rhs", spread({2, 2, 3}, 216), spread({1, 3, 2}, 217),
                          [](T3 a, T3 b) { return a.matmul(b); }));
  c.push_back(case2<4, 4>("matmul_broadcast_both", spread({2, 1, 2, 3}, 218),
                          spread({1, 2, 3, 2}, 219), [](T4 a, T4 b) { return a.matmul(b); }));
  c.push_back(case2<2, 2>("matmul_transposed_views", spread({3, 2}, 220), spread({2, 3}, 221),
                          [](T2 a, T2 b) { return a.transpose().matmul(b.transpose()); }));
  c.push_back(case1<2>("matmul_with_itself", spread({2, 3}, 222),
                       [](T2 x) { return x.matmul(x.transpose()); }));
}

inline void add_activations(std::vector<GradCase>& c) {
  // Kinks at 0 (and at +-3 for hard_sigmoid) sit on cell boundaries of these inputs.
  c.push_back(case1<2>("relu", spread({2, 4}, 230), [](T2 x) { return activation::relu(x); }));
  c.push_back(case1<2>("leaky_relu", spread({2, 4}, 231),
                       [](T2 x) { return activation::leaky_relu(x, 0.1); }));
  c.push_back(
      case1<2>("gelu", spread({2, 4}, 232, -3, 3), [](T2 x) { return activation::gelu(x); }));
  c.push_back(
      case1<2>("sigmoid", spread({2, 4}, 233, -4, 4), [](T2 x) { return activation::sigmoid(x); }));
  c.push_back(case1<2>("log_sigmoid", spread({2, 4}, 234, -4, 4),
                       [](T2 x) { return activation::log_sigmoid(x); }));
  c.push_back(case1<2>("hard_sigmoid", spread({2, 4}, 235, -4, 4),
                       [](T2 x) { return activation::hard_sigmoid(x, 1.0 / 6.0, 0.5); }));
  c.push_back(
      case1<2>("silu", spread({2, 4}, 236, -4, 4), [](T2 x) { return activation::silu(x); }));
  c.push_back(
      case1<2>("mish", spread({2, 4}, 237, -4, 4), [](T2 x) { return activation::mish(x); }));
  c.push_back(case1<2>("softplus", spread({2, 4}, 238, -4, 4),
                       [](T2 x) { return activation::softplus(x); }));
  c.push_back(case1<2>("softplus_beta2", spread({2, 4}, 239, -4, 4),
                       [](T2 x) { return activation::softplus(x, 2.0); }));
  c.push_back(case2<2, 1>("prelu_one_slope", spread({2, 4}, 240), positive({1}, 241),
                          [](T2 x, T1 a) { return activation::prelu(x, a); }));
  c.push_back(case2<3, 1>("prelu_per_channel", spread({2, 3, 2}, 242), spread({3}, 243, 0.1, 0.9),
                          [](T3 x, T1 a) { return activation::prelu(x, a); }));
  c.push_back(
      case1<2>("activation_tanh", spread({2, 4}, 244), [](T2 x) { return activation::tanh(x); }));
  c.push_back(
      case1<2>("softmax", spread({2, 4}, 245), [](T2 x) { return activation::softmax(x, 1); }));
  c.push_back(case1<3>("softmax_dim0", spread({3, 2, 2}, 246),
                       [](T3 x) { return activation::softmax(x, 0); }));
  c.push_back(
      case1<2>("softmin", spread({2, 4}, 247), [](T2 x) { return activation::softmin(x, -1); }));
  c.push_back(case1<2>("log_softmax", spread({2, 4}, 248),
                       [](T2 x) { return activation::log_softmax(x, 1); }));
  c.push_back(case1<2>("log_softmax_dim0", spread({3, 2}, 249),
                       [](T2 x) { return activation::log_softmax(x, 0); }));
  c.push_back(case1<2>("quiet_softmax", spread({2, 4}, 250),
                       [](T2 x) { return activation::quiet_softmax(x, 1); }));
}

inline void add_linalg_grid_and_compositions(std::vector<GradCase>& c) {
  using linalg::Norm;
  using linalg::vector_norm;
  c.push_back(case1<2>("norm_l1", away_from_zero({2, 3}, 260),
                       [](T2 x) { return vector_norm(x, Norm::l1(), 1); }));
  c.push_back(
      case1<2>("norm_l2", spread({2, 3}, 261), [](T2 x) { return vector_norm(x, Norm::l2(), 1); }));
  c.push_back(case1<2>("norm_linf", away_from_zero({2, 3}, 262),
                       [](T2 x) { return vector_norm(x, Norm::linf(), 0); }));
  c.push_back(case1<2>("norm_lneg_inf", away_from_zero({2, 3}, 263),
                       [](T2 x) { return vector_norm(x, Norm::lneg_inf(), 1); }));
  c.push_back(case1<2>("norm_l3", away_from_zero({2, 3}, 264),
                       [](T2 x) { return vector_norm(x, Norm::lp(3), 1); }));
  c.push_back(case1<2>("norm_l_half", away_from_zero({2, 3}, 265),
                       [](T2 x) { return vector_norm(x, Norm::lp(0.5), 1); }));
  c.push_back(case1<2>("norm_l0", away_from_zero({2, 3}, 266), [](T2 x) {
                return vector_norm(x, Norm::l0(), 1);
              }).disconnected());
  c.push_back(case2<1, 1>("meshgrid_matrix", spread({2}, 270), spread({3}, 271), [](T1 a, T1 b) {
    auto g = grid::meshgrid<2, Float>({a, b}, grid::GridIndexing::Matrix);
    return g[0] * g[1].exp();
  }));
  c.push_back(case2<1, 1>("meshgrid_cartesian", spread({2}, 272), spread({3}, 273), [](T1 a, T1 b) {
    auto g = grid::meshgrid<2, Float>({a, b}, grid::GridIndexing::Cartesian);
    return g[0].sin() + g[1] * g[0];
  }));
  // Several uses of one value, and the frontend's composite forms chained (gradients accumulate
  // through shared subexpressions).
  c.push_back(case1<2>("reused_value", spread({2, 3}, 280),
                       [](T2 x) { return x * x.exp() + x.sin() * x - x.powf_scalar(2.0); }));
  c.push_back(case1<2>("layer_norm", spread({2, 4}, 281), [](T2 x) {
    auto [v, m] = x.var_mean_bias(1);
    return (x - m) / (v + 1e-5).sqrt();
  }));
  c.push_back(
      case2<2, 2>("cross_entropy", spread({3, 4}, 282), spread({4, 2}, 283), [](T2 x, T2 w) {
        auto logits = x.matmul(w);
        auto target = I2::from_ints({{1}, {0}, {1}}, x.device());
        return -activation::log_softmax(logits, 1).gather(1, target).mean();
      }));
}

// Convolutions (both gradients of every parameter combination the data-gradient and weight-
// gradient compositions treat differently), pooling and resampling.
inline void add_module_ops(std::vector<GradCase>& c) {
  using T5 = Tensor<5>;
  namespace m = module;
  c.push_back(case3<3, 3, 1>("conv1d_stride_pad_bias", spread({2, 2, 7}, 600),
                             spread({3, 2, 3}, 601), spread({3}, 602), [](T3 x, T3 w, T1 b) {
                               return m::conv1d(x, w, b, {{2}, {1}, {1}, 1});
                             }));
  c.push_back(case2<4, 4>("conv2d_plain", spread({1, 2, 4, 5}, 603), spread({2, 2, 3, 2}, 604),
                          [](T4 x, T4 w) { return m::conv2d(x, w); }));
  c.push_back(case2<4, 4>("conv2d_stride_pad_dilation", spread({2, 2, 6, 5}, 605),
                          spread({3, 2, 2, 3}, 606), [](T4 x, T4 w) {
                            return m::conv2d(x, w, std::nullopt, {{2, 1}, {1, 2}, {2, 1}, 1});
                          }));
  c.push_back(case2<4, 4>("conv2d_groups", spread({1, 4, 4, 4}, 607), spread({6, 2, 3, 3}, 608),
                          [](T4 x, T4 w) {
                            return m::conv2d(x, w, std::nullopt, {{1, 1}, {1, 1}, {1, 1}, 2});
                          }));
  c.push_back(case2<4, 4>("conv2d_depthwise_strided", spread({2, 3, 5, 5}, 609),
                          spread({3, 1, 3, 3}, 610), [](T4 x, T4 w) {
                            return m::conv2d(x, w, std::nullopt, {{2, 2}, {1, 1}, {1, 1}, 3});
                          }));
  c.push_back(case2<5, 5>(
      "conv3d", spread({1, 2, 3, 4, 3}, 611), spread({2, 2, 2, 2, 2}, 612), [](T5 x, T5 w) {
        return m::conv3d(x, w, std::nullopt, {{1, 2, 1}, {1, 0, 1}, {1, 1, 1}, 1});
      }));
  c.push_back(
      case3<4, 4, 1>("conv_transpose2d_stride_outpad", spread({1, 2, 3, 3}, 613),
                     spread({2, 3, 3, 2}, 614), spread({3}, 615), [](T4 x, T4 w, T1 b) {
                       return m::conv_transpose2d(x, w, b, {{2, 2}, {1, 0}, {1, 1}, {1, 1}, 1});
                     }));
  c.push_back(case2<3, 3>("conv_transpose1d_groups_dilation", spread({2, 4, 4}, 616),
                          spread({4, 1, 3}, 617), [](T3 x, T3 w) {
                            return m::conv_transpose1d(x, w, std::nullopt, {{1}, {1}, {0}, {2}, 2});
                          }));
  c.push_back(case1<4>("max_pool2d_overlapping", spread({1, 2, 5, 5}, 618), [](T4 x) {
    return m::max_pool2d(x, {3, 3}, {{{2, 2}}, {1, 1}, {1, 1}, false, true});
  }));
  c.push_back(case1<3>("max_pool1d_ceil_dilated", spread({2, 1, 8}, 619), [](T3 x) {
    return m::max_pool1d(x, {2}, {{{3}}, {0}, {2}, true, true});
  }));
  c.push_back(case1<4>("avg_pool2d_exclude_pad_ceil", spread({1, 2, 5, 4}, 620), [](T4 x) {
    return m::avg_pool2d(x, {2, 3}, {{{2, 2}}, {1, 1}, {1, 1}, true, false});
  }));
  c.push_back(case1<3>("avg_pool1d", spread({2, 2, 6}, 621), [](T3 x) {
    return m::avg_pool1d(x, {3}, {{{1}}, {1}, {1}, false, true});
  }));
  c.push_back(case1<4>("adaptive_avg_pool2d", spread({1, 2, 5, 7}, 622), [](T4 x) {
    return m::adaptive_avg_pool2d(x, {3, 4});
  }));
  c.push_back(case1<4>("adaptive_max_pool2d", spread({1, 2, 5, 7}, 623), [](T4 x) {
    return m::adaptive_max_pool2d(x, {3, 4});
  }));
  c.push_back(case1<4>("interpolate_bilinear", spread({1, 2, 3, 4}, 624), [](T4 x) {
    return m::interpolate(x, {5, 3}, {m::InterpolateMode::Bilinear, false});
  }));
  c.push_back(case1<4>("interpolate_bicubic_aligned", spread({1, 1, 4, 4}, 625), [](T4 x) {
    return m::interpolate(x, {6, 3}, {m::InterpolateMode::Bicubic, true});
  }));
  c.push_back(case1<4>("interpolate_nearest", spread({1, 2, 3, 3}, 626), [](T4 x) {
    return m::interpolate(x, {5, 2}, {m::InterpolateMode::Nearest, false});
  }));
  c.push_back(case1<4>("unfold4d", spread({1, 2, 4, 4}, 627), [](T4 x) {
    return m::unfold4d(x, {2, 3}, {{2, 1}, {1, 0}, {1, 1}});
  }));
  c.push_back(case1<4>("pixel_shuffle", spread({1, 8, 2, 3}, 628),
                       [](T4 x) { return m::pixel_shuffle(x, 2); }));
}

}  // namespace grad_cases_detail

// Every case, built once.
inline const std::vector<GradCase>& grad_cases() {
  static const std::vector<GradCase> cases = [] {
    std::vector<GradCase> c;
    grad_cases_detail::add_elementwise(c);
    grad_cases_detail::add_reductions(c);
    grad_cases_detail::add_sorting(c);
    grad_cases_detail::add_shape(c);
    grad_cases_detail::add_indexing(c);
    grad_cases_detail::add_matmul(c);
    grad_cases_detail::add_activations(c);
    grad_cases_detail::add_linalg_grid_and_compositions(c);
    grad_cases_detail::add_module_ops(c);
    return c;
  }();
  return cases;
}

// ---------------------------------------------------------------- evaluation

// The inputs of `c` as fresh (untracked) tensors of `dtype` on `dev`.
inline std::vector<RawTensor> grad_inputs(const GradCase& c, DType dtype, const Device& dev) {
  std::vector<RawTensor> xs;
  for (const GradInput& in : c.inputs) xs.push_back(upload(in.values, in.shape, dtype, dev));
  return xs;
}

// Analytic gradients of sum(f(inputs) * w) with respect to each input (nullopt where none is
// reported), recorded and differentiated under `policy`.
inline std::vector<std::optional<TensorData>> analytic_gradients(const GradCase& c, DType dtype,
                                                                 const Device& dev,
                                                                 Checkpointing policy) {
  CheckpointingGuard guard(policy);
  std::vector<RawTensor> xs;
  for (RawTensor& x : grad_inputs(c, dtype, dev)) xs.push_back(require_grad(x));
  RawTensor y = c.f(xs);
  RawTensor w = upload(grad_weights(y.shape().numel()), y.shape(), y.dtype(), dev);
  RawTensor loss = ops::reduce_all(ir::ReduceFn::Sum, ops::binary(ir::BinaryFn::Mul, y, w));
  Gradients grads = ember::backward(loss, policy);
  std::vector<std::optional<TensorData>> out;
  for (const RawTensor& x : xs) {
    std::optional<RawTensor> g = grads.get(x);
    out.push_back(g ? std::optional<TensorData>(g->to_data()) : std::nullopt);
  }
  return out;
}

}  // namespace ember::testing
