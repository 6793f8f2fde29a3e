// Activations, grid, linalg, display and closeness checks. Expected values come from <cmath> on
// doubles, plain loops, or are written out by hand (PyTorch / Burn semantics).
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_tensor;

using testing::kInf;
using testing::kNaN;

using testing::map;

// A tensor of f32 values (all inputs below are exactly representable in f32).
template <int D = 1>
Tensor<D> make(const std::vector<double>& xs, Shape shape) {
  std::vector<float> f(xs.begin(), xs.end());
  return Tensor<D>::from_data(TensorData(f, std::move(shape)), Device::cpu());
}
Tensor<1> vec(const std::vector<double>& xs) {
  return make<1>(xs, Shape{static_cast<int64_t>(xs.size())});
}

double sigmoid_ref(double x) {
  return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
}
double softplus_ref(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

// Softmax of each row of a row-major [rows, cols] block along the last dim.
std::vector<double> softmax_rows(const std::vector<double>& x, int rows, int cols, bool log) {
  std::vector<double> out;
  for (int r = 0; r < rows; ++r) {
    double m = -kInf;
    for (int c = 0; c < cols; ++c) m = std::max(m, x[r * cols + c]);
    double s = 0;
    for (int c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int c = 0; c < cols; ++c) {
      double z = x[r * cols + c] - m;
      out.push_back(log ? z - std::log(s) : std::exp(z) / s);
    }
  }
  return out;
}

// ---------------------------------------------------------------- pointwise activations

TEST(Activation, Relu) {
  expect_tensor(activation::relu(vec({-1.5, 0.0, 2.0, -kInf, kInf})), Shape{5}, {0, 0, 2, 0, kInf});
}

TEST(Activation, GeluExactErfForm) {
  std::vector<double> xs = {-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0};
  // PyTorch gelu (approximate='none'): x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2))).
  auto want = map(xs, [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); });
  expect_tensor(activation::gelu(vec(xs)), Shape{7}, want, 1e-6);
  // The tanh approximation gives 0.841192 at x = 1; the exact form 0.841345.
  double g1 = activation::gelu(vec({1.0})).to_data().to_vec<double>()[0];
  EXPECT_NEAR(g1, 0.8413447460685429, 1e-6);
}

TEST(Activation, HardSigmoid) {
  // PyTorch hardsigmoid: alpha 1/6, beta 0.5.
  auto x = vec({-4.0, -3.0, 0.0, 1.5, 3.0, 4.0});
  expect_tensor(activation::hard_sigmoid(x, 1.0 / 6.0, 0.5), Shape{6}, {0, 0, 0.5, 0.75, 1, 1});
  // ONNX HardSigmoid defaults: alpha 0.2, beta 0.5.
  expect_tensor(activation::hard_sigmoid(x, 0.2, 0.5), Shape{6}, {0, 0, 0.5, 0.8, 1, 1});
}

TEST(Activation, LeakyRelu) {
  auto x = vec({-2.0, -0.5, 0.0, 3.0});
  expect_tensor(activation::leaky_relu(x, 0.01), Shape{4}, {-0.02, -0.005, 0, 3});
  expect_tensor(activation::leaky_relu(x, 0.2), Shape{4}, {-0.4, -0.1, 0, 3});
}

TEST(Activation, SigmoidLargeInputsStayFinite) {
  std::vector<double> xs = {-100.0, -5.0, -1.0, 0.0, 1.0, 5.0, 100.0};
  expect_tensor(activation::sigmoid(vec(xs)), Shape{7}, map(xs, sigmoid_ref), 1e-6);
  auto extreme = activation::sigmoid(vec({-1000.0, 1000.0, -kInf, kInf}));
  expect_tensor(extreme, Shape{4}, {0, 1, 0, 1});
}

TEST(Activation, LogSigmoidStable) {
  std::vector<double> xs = {-100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0};
  // log(sigmoid(x)) = -softplus(-x).
  auto want = map(xs, [](double x) { return -softplus_ref(-x); });
  expect_tensor(activation::log_sigmoid(vec(xs)), Shape{7}, want, 1e-6);
  // Far out: log_sigmoid(-1000) = -1000 (not -inf), log_sigmoid(1000) = 0 (not NaN).
  std::vector<double> got =
      activation::log_sigmoid(vec({-1000.0, 1000.0})).to_data().to_vec<double>();
  EXPECT_NEAR(got[0], -1000.0, 1e-3);
  EXPECT_NEAR(got[1], 0.0, 1e-12);
  // Tiny magnitude near +20: -log1p(exp(-20)) = -2.061e-9, resolvable relative to itself.
  double g20 = activation::log_sigmoid(vec({20.0})).to_data().to_vec<double>()[0];
  EXPECT_NEAR(g20, -std::log1p(std::exp(-20.0)), 1e-12);
}

TEST(Activation, Silu) {
  std::vector<double> xs = {-100.0, -2.0, -0.5, 0.0, 0.5, 2.0, 100.0};
  expect_tensor(activation::silu(vec(xs)), Shape{7},
                map(xs, [](double x) { return x * sigmoid_ref(x); }), 1e-6);
}

TEST(Activation, Mish) {
  std::vector<double> xs = {-30.0, -2.0, -0.5, 0.0, 1.5, 30.0};
  expect_tensor(activation::mish(vec(xs)), Shape{6},
                map(xs, [](double x) { return x * std::tanh(softplus_ref(x)); }), 1e-6);
}

TEST(Activation, SoftplusBeta) {
  std::vector<double> xs = {-50.0, -1.0, 0.0, 1.0, 50.0};
  expect_tensor(activation::softplus(vec(xs)), Shape{5}, map(xs, softplus_ref), 1e-6);
  // softplus(x, beta) = log(1 + exp(beta x)) / beta.
  for (double beta : {2.0, 0.5}) {
    SCOPED_TRACE(beta);
    expect_tensor(activation::softplus(vec(xs), beta), Shape{5},
                  map(xs, [&](double x) { return softplus_ref(beta * x) / beta; }), 1e-6);
  }
  EXPECT_NEAR(activation::softplus(vec({0.0}), 2.0).into_scalar(), std::log(2.0) / 2.0, 1e-6);
}

TEST(Activation, Tanh) {
  std::vector<double> xs = {-20.0, -1.0, -0.25, 0.0, 0.25, 1.0, 20.0};
  expect_tensor(activation::tanh(vec(xs)), Shape{7}, map(xs, [](double x) { return std::tanh(x); }),
                1e-6);
}

TEST(Activation, PreluScalarAndPerChannel) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_floats({{-2.0, 3.0}, {0.0, -4.0}}, cpu);
  expect_tensor(activation::prelu(x, Tensor<1>::from_floats({0.25}, cpu)), Shape{2, 2},
                {-0.5, 3, 0, -1});
  // [N, C, L] with one slope per channel (dim 1), as torch.nn.functional.prelu.
  std::vector<double> xv = {-1, 2, -3, 4, -5, -6, 7, -8, 9, -10, -11, 12};
  std::vector<double> alpha = {0.1, 0.2, 0.3};
  std::vector<double> want;
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int l = 0; l < 2; ++l) {
        double v = xv[n * 6 + c * 2 + l];
        want.push_back(v < 0 ? alpha[c] * v : v);
      }
  auto x3 = make<3>(xv, Shape{2, 3, 2});
  expect_tensor(activation::prelu(x3, Tensor<1>::from_floats({0.1, 0.2, 0.3}, cpu)), Shape{2, 3, 2},
                want);
  // [N, C]
  auto x2 = Tensor<2>::from_floats({{-1, -1, -1}, {2, -2, 2}}, cpu);
  expect_tensor(activation::prelu(x2, Tensor<1>::from_floats({0.1, 0.2, 0.3}, cpu)), Shape{2, 3},
                {-0.1, -0.2, -0.3, 2, -0.4, 2});
  expect_error(
      [&] {
        auto bad = activation::prelu(x3, Tensor<1>::from_floats({0.1, 0.2}, cpu));
      },
      {"prelu"});
}

// ---------------------------------------------------------------- softmax family

TEST(Activation, SoftmaxLastDimStable) {
  std::vector<double> xv = {1, 2, 3, 1000, 1001, 1002, -1000, 0, 1000};
  auto x = make<2>(xv, Shape{3, 3});
  auto want = softmax_rows(xv, 3, 3, false);
  expect_tensor(activation::softmax(x, 1), Shape{3, 3}, want, 1e-6);
  expect_tensor(activation::softmax(x, -1), Shape{3, 3}, want, 1e-6);
  // Rows sum to 1.
  std::vector<double> rows = activation::softmax(x, 1).sum_dim(1).to_data().to_vec<double>();
  for (double r : rows) EXPECT_NEAR(r, 1.0, 1e-6);
}

TEST(Activation, SoftmaxDimZero) {
  // Along dim 0 of [2, 3]: each column is normalised.
  std::vector<double> xv = {0, 1, 2, 3, 1, -2};
  std::vector<double> want(6);
  for (int c = 0; c < 3; ++c) {
    double a = std::exp(xv[c]), b = std::exp(xv[3 + c]);
    want[c] = a / (a + b);
    want[3 + c] = b / (a + b);
  }
  expect_tensor(activation::softmax(make<2>(xv, Shape{2, 3}), 0), Shape{2, 3}, want, 1e-6);
}

TEST(Activation, SoftmaxWithInfiniteLogits) {
  // -inf logits get probability 0 (log probability -inf); the rest share the mass.
  auto x = vec({-kInf, 0.0, 0.0});
  expect_tensor(activation::softmax(x, 0), Shape{3}, {0, 0.5, 0.5});
  expect_tensor(activation::log_softmax(x, 0), Shape{3}, {-kInf, -std::log(2.0), -std::log(2.0)});
  expect_tensor(activation::softmin(vec({kInf, 1.0}), 0), Shape{2}, {0, 1});
}

TEST(Activation, Softmin) {
  std::vector<double> xv = {1, 2, 3, -1, 0, 5};
  std::vector<double> neg = map(xv, [](double v) { return -v; });
  expect_tensor(activation::softmin(make<2>(xv, Shape{2, 3}), 1), Shape{2, 3},
                softmax_rows(neg, 2, 3, false), 1e-6);
}

TEST(Activation, LogSoftmax) {
  std::vector<double> xv = {1, 2, 3, 1000, 1000, 1000, -50, 0, 50};
  auto got = activation::log_softmax(make<2>(xv, Shape{3, 3}), 1);
  auto want = softmax_rows(xv, 3, 3, true);
  expect_tensor(got, Shape{3, 3}, want, 1e-5);
  // log(1/3) for equal logits; a row with a dominant logit keeps finite tails (-100, -50, ~0).
  EXPECT_NEAR(want[3], -std::log(3.0), 1e-12);
  for (double v : got.to_data().to_vec<double>()) EXPECT_TRUE(std::isfinite(v));
}

TEST(Activation, QuietSoftmax) {
  // exp(x_i) / (1 + sum_j exp(x_j)): an implicit extra zero logit.
  std::vector<double> xv = {1, 2, 3, 0, 0, 0, -1000, -1000, -1000, 1000, 1000, 1000};
  std::vector<double> want;
  for (int r = 0; r < 4; ++r) {
    double m = 0;  // the max over the row and the implicit zero
    for (int c = 0; c < 3; ++c) m = std::max(m, xv[r * 3 + c]);
    double s = std::exp(-m);
    for (int c = 0; c < 3; ++c) s += std::exp(xv[r * 3 + c] - m);
    for (int c = 0; c < 3; ++c) want.push_back(std::exp(xv[r * 3 + c] - m) / s);
  }
  auto got = activation::quiet_softmax(make<2>(xv, Shape{4, 3}), 1);
  expect_tensor(got, Shape{4, 3}, want, 1e-6);
  // Hand-checked rows: zeros give 1/4 each; very negative logits give all zeros (no NaN).
  EXPECT_NEAR(want[3], 0.25, 1e-12);
  EXPECT_EQ(want[6], 0.0);
  EXPECT_NEAR(want[9], 1.0 / 3.0, 1e-12);
}

// ---------------------------------------------------------------- grid

TEST(Grid, MeshgridMatrixIndexing) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_floats({1, 2, 3}, cpu);
  auto y = Tensor<1>::from_floats({4, 5}, cpu);
  // torch.meshgrid(x, y, indexing="ij"): shape [3, 2], X[i][j] = x[i], Y[i][j] = y[j].
  auto g = grid::meshgrid(std::array<Tensor<1>, 2>{x, y}, grid::GridIndexing::Matrix);
  expect_tensor(g[0], Shape{3, 2}, {1, 1, 2, 2, 3, 3}, 0);
  expect_tensor(g[1], Shape{3, 2}, {4, 5, 4, 5, 4, 5}, 0);
}

TEST(Grid, MeshgridCartesianIndexing) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_floats({1, 2, 3}, cpu);
  auto y = Tensor<1>::from_floats({4, 5}, cpu);
  // torch.meshgrid(x, y, indexing="xy"): shape [2, 3], X[j][i] = x[i], Y[j][i] = y[j].
  auto g = grid::meshgrid(std::array<Tensor<1>, 2>{x, y}, grid::GridIndexing::Cartesian);
  expect_tensor(g[0], Shape{2, 3}, {1, 2, 3, 1, 2, 3}, 0);
  expect_tensor(g[1], Shape{2, 3}, {4, 4, 4, 5, 5, 5}, 0);
}

TEST(Grid, MeshgridThreeInputs) {
  Device cpu = Device::cpu();
  std::vector<int64_t> xs = {1, 2}, ys = {10, 20, 30}, zs = {100, 200, 300, 400};
  auto x = Tensor<1, Int>::from_ints({1, 2}, cpu);
  auto y = Tensor<1, Int>::from_ints({10, 20, 30}, cpu);
  auto z = Tensor<1, Int>::from_ints({100, 200, 300, 400}, cpu);
  auto ij = grid::meshgrid(std::array<Tensor<1, Int>, 3>{x, y, z}, grid::GridIndexing::Matrix);
  std::vector<double> w0, w1, w2;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        w0.push_back(xs[i]);
        w1.push_back(ys[j]);
        w2.push_back(zs[k]);
      }
  expect_tensor(ij[0], Shape{2, 3, 4}, w0, 0);
  expect_tensor(ij[1], Shape{2, 3, 4}, w1, 0);
  expect_tensor(ij[2], Shape{2, 3, 4}, w2, 0);
  // "xy" with three inputs: shape [len(y), len(x), len(z)]; out[j][i][k].
  auto xy = grid::meshgrid(std::array<Tensor<1, Int>, 3>{x, y, z}, grid::GridIndexing::Cartesian);
  std::vector<double> c0, c1, c2;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) {
        c0.push_back(xs[i]);
        c1.push_back(ys[j]);
        c2.push_back(zs[k]);
      }
  expect_tensor(xy[0], Shape{3, 2, 4}, c0, 0);
  expect_tensor(xy[1], Shape{3, 2, 4}, c1, 0);
  expect_tensor(xy[2], Shape{3, 2, 4}, c2, 0);
}

// ---------------------------------------------------------------- linalg

TEST(Linalg, VectorNormOrders) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_floats({{3, -4, 0}, {1, -2, 2}}, cpu);
  using linalg::Norm;
  expect_tensor(linalg::vector_norm(x, Norm::l0(), 1), Shape{2, 1}, {2, 3});
  expect_tensor(linalg::vector_norm(x, Norm::l1(), 1), Shape{2, 1}, {7, 5});
  expect_tensor(linalg::vector_norm(x, Norm::l2(), 1), Shape{2, 1}, {5, 3});
  expect_tensor(linalg::vector_norm(x, Norm::linf(), 1), Shape{2, 1}, {4, 2});
  expect_tensor(linalg::vector_norm(x, Norm::lneg_inf(), 1), Shape{2, 1}, {0, 1});
  expect_tensor(linalg::vector_norm(x, Norm::lp(3), 1), Shape{2, 1},
                {std::cbrt(27.0 + 64.0), std::cbrt(1.0 + 8.0 + 8.0)});
  // Along dim 0: columns (3, 1), (-4, -2), (0, 2).
  expect_tensor(linalg::vector_norm(x, Norm::l2(), 0), Shape{1, 3},
                {std::sqrt(10.0), std::sqrt(20.0), 2});
  expect_tensor(linalg::vector_norm(x, Norm::l0(), 0), Shape{1, 3}, {2, 2, 1});
  expect_tensor(linalg::vector_norm(x, Norm::lneg_inf(), 0), Shape{1, 3}, {1, 2, 0});
  expect_tensor(linalg::vector_norm(x, Norm::lp(0.5), 0), Shape{1, 3},
                {std::pow(std::sqrt(3.0) + 1.0, 2.0), std::pow(2.0 + std::sqrt(2.0), 2.0),
                 std::pow(std::sqrt(2.0), 2.0)});
}

// ---------------------------------------------------------------- display

// Restores the global print options when a test ends.
struct PrintOptionsGuard {
  PrintOptions saved = print_options();
  ~PrintOptionsGuard() { set_print_options(saved); }
};

std::string block(const std::string& data, const std::string& shape, const char* kind,
                  const char* dtype) {
  return "Tensor {\n  data:\n  " + data + ",\n  shape: " + shape +
         ",\n  device: " + Device::cpu().to_string() + ",\n  backend: \"ember\",\n  kind: \"" +
         kind + "\",\n  dtype: \"" + dtype + "\",\n}";
}

TEST(Display, BurnBookExample) {
  PrintOptionsGuard guard;
  set_print_options(PrintOptions{});
  auto t = Tensor<2>::full({2, 3}, 0.123456789, Device::cpu());
  EXPECT_EQ(t.to_string(), block("[[0.12345679, 0.12345679, 0.12345679],\n"
                                 "   [0.12345679, 0.12345679, 0.12345679]]",
                                 "[2, 3]", "Float", "f32"));
  EXPECT_EQ(t.to_string(2),
            block("[[0.12, 0.12, 0.12],\n   [0.12, 0.12, 0.12]]", "[2, 3]", "Float", "f32"));
  std::ostringstream fixed;
  fixed << std::fixed << std::setprecision(2) << t;
  EXPECT_EQ(fixed.str(), t.to_string(2));
  std::ostringstream plain;
  plain << t;
  EXPECT_EQ(plain.str(), t.to_string());
}

TEST(Display, GlobalPrecisionAndOverride) {
  PrintOptionsGuard guard;
  PrintOptions opts;
  opts.precision = 3;
  set_print_options(opts);
  EXPECT_EQ(print_options().precision.value_or(-1), 3);
  auto t = Tensor<1>::from_floats({1.0, -0.5, 2.3, 1.0 / 3.0}, Device::cpu());
  EXPECT_EQ(t.to_string(), block("[1.000, -0.500, 2.300, 0.333]", "[4]", "Float", "f32"));
  EXPECT_EQ(t.to_string(1), block("[1.0, -0.5, 2.3, 0.3]", "[4]", "Float", "f32"));
  set_print_options(PrintOptions{});
  EXPECT_EQ(t.to_string(), block("[1.0, -0.5, 2.3, 0.33333334]", "[4]", "Float", "f32"));
}

TEST(Display, SpecialFloatsAndDtypes) {
  PrintOptionsGuard guard;
  set_print_options(PrintOptions{});
  auto t = Tensor<1>::from_floats({kNaN, kInf, -kInf, 2.0}, Device::cpu());
  EXPECT_EQ(t.to_string(), block("[NaN, inf, -inf, 2.0]", "[4]", "Float", "f32"));
  auto d = Tensor<1>::from_data(TensorData(std::vector<double>{0.1, 1.0 / 3.0}), Device::cpu());
  EXPECT_EQ(d.to_string(), block("[0.1, 0.3333333333333333]", "[2]", "Float", "f64"));
  auto h = Tensor<1>::from_floats({0.5, 3.0}, Device::cpu()).cast(DType::F16);
  EXPECT_EQ(h.to_string(), block("[0.5, 3.0]", "[2]", "Float", "f16"));
}

TEST(Display, IntAndBoolKinds) {
  PrintOptionsGuard guard;
  set_print_options(PrintOptions{});
  auto i = Tensor<2, Int>::from_ints({{1, -2, 3}, {40, 0, -600}}, Device::cpu());
  EXPECT_EQ(i.to_string(), block("[[1, -2, 3],\n   [40, 0, -600]]", "[2, 3]", "Int", "i32"));
  // Precision does not apply to integers.
  EXPECT_EQ(i.to_string(2), i.to_string());
  auto b = Tensor<1, Bool>::from_bool({true, false, true}, Device::cpu());
  EXPECT_EQ(b.to_string(), block("[true, false, true]", "[3]", "Bool", "bool"));
  std::ostringstream os;
  os << b;
  EXPECT_EQ(os.str(), b.to_string());
  auto r3 = Tensor<3, Int>::from_ints({{{0, 1}}, {{2, 3}}}, Device::cpu());
  EXPECT_EQ(r3.to_string(), block("[[[0, 1]],\n   [[2, 3]]]", "[2, 1, 2]", "Int", "i32"));
}

TEST(Display, SummarizesAboveThreshold) {
  PrintOptionsGuard guard;
  PrintOptions opts;
  opts.threshold = 5;
  opts.edge_items = 2;
  set_print_options(opts);
  std::vector<int64_t> v10(10);
  for (int i = 0; i < 10; ++i) v10[i] = i;
  auto t = Tensor<1, Int>::from_data(TensorData(v10), Device::cpu());
  EXPECT_EQ(t.to_string(), block("[0, 1, ..., 8, 9]", "[10]", "Int", "i64"));
  auto f = Tensor<1>::from_floats({0, 1, 2, 3, 4, 5, 6}, Device::cpu());
  EXPECT_EQ(f.to_string(), block("[0.0, 1.0, ..., 5.0, 6.0]", "[7]", "Float", "f32"));
  // At the threshold nothing is elided.
  auto five = Tensor<1>::from_floats({0, 1, 2, 3, 4}, Device::cpu());
  EXPECT_EQ(five.to_string(), block("[0.0, 1.0, 2.0, 3.0, 4.0]", "[5]", "Float", "f32"));
  // 2-D: both dims summarised, one edge item each.
  opts.threshold = 10;
  opts.edge_items = 1;
  set_print_options(opts);
  std::vector<float> v20(20);
  for (int i = 0; i < 20; ++i) v20[i] = static_cast<float>(i);
  auto m = Tensor<2>::from_data(TensorData(v20, Shape{4, 5}), Device::cpu());
  EXPECT_EQ(m.to_string(),
            block("[[0.0, ..., 4.0],\n   ...,\n   [15.0, ..., 19.0]]", "[4, 5]", "Float", "f32"));
  // Bool kind summarised too; a short dim (n <= 2 * edge) is kept whole.
  std::vector<bool> bv(12);
  for (int i = 0; i < 12; ++i) bv[i] = i == 0 || i == 11;
  auto b = Tensor<2, Bool>::from_data(TensorData(bv, Shape{2, 6}), Device::cpu());
  EXPECT_EQ(b.to_string(),
            block("[[true, ..., false],\n   [false, ..., true]]", "[2, 6]", "Bool", "bool"));
  // An empty tensor.
  EXPECT_EQ(Tensor<1>::zeros({0}, Device::cpu()).to_string(), block("[]", "[0]", "Float", "f32"));
  // Default threshold (1000): a 1000-element tensor prints whole, 1001 does not.
  set_print_options(PrintOptions{});
  EXPECT_EQ(Tensor<1>::zeros({1000}, Device::cpu()).to_string().find("..."), std::string::npos);
  EXPECT_NE(Tensor<1>::zeros({1001}, Device::cpu()).to_string().find("[0.0, 0.0, 0.0, ..., 0.0"),
            std::string::npos);
}

// ---------------------------------------------------------------- closeness

TEST(Closeness, AssertApproxEqPasses) {
  TensorData a(std::vector<float>{1.0f, 2.0f, NAN, INFINITY});
  TensorData b(std::vector<float>{1.0f, 2.000001f, NAN, INFINITY});
  EXPECT_NO_THROW(a.assert_approx_eq(b));
  EXPECT_NO_THROW(a.assert_approx_eq(a, Tolerance{0, 0}));
  TensorData c(std::vector<float>{1.0f, 2.1f, NAN, INFINITY});
  EXPECT_NO_THROW(a.assert_approx_eq(c, Tolerance::absolute(0.2)));
  EXPECT_NO_THROW(a.assert_approx_eq(c, Tolerance::relative(0.05)));
  EXPECT_NO_THROW(a.assert_approx_eq(c, Tolerance::rel_abs(0.01, 0.1)));
  // Data of another dtype compares by value.
  TensorData d(std::vector<double>{1.0, 2.0, NAN, INFINITY});
  EXPECT_NO_THROW(a.assert_approx_eq(d));
  EXPECT_NO_THROW(a.assert_eq(d, /*strict=*/false));
}

TEST(Closeness, AssertApproxEqThrows) {
  TensorData a(std::vector<float>{1.0f, 2.0f, 3.0f});
  expect_error(
      [&] {
        a.assert_approx_eq(TensorData(std::vector<float>{1.0f, 2.1f, 3.0f}));
      },
      {"assert_approx_eq"});
  expect_error(
      [&] {
        a.assert_approx_eq(TensorData(std::vector<float>{1.0f, 2.1f, 3.0f}),
                           Tolerance::relative(0.01));
      },
      {"assert_approx_eq"});
  expect_error(
      [&] {
        a.assert_approx_eq(TensorData(std::vector<float>{1, 2, 3}, Shape{1, 3}));
      },
      {"[3]", "[1, 3]"});
  expect_error([&] { a.assert_approx_eq(TensorData(std::vector<float>{1, 2, NAN})); }, {});
  TensorData inf(std::vector<float>{INFINITY});
  expect_error([&] { inf.assert_approx_eq(TensorData(std::vector<float>{3e38f})); }, {});
  expect_error([&] { a.assert_eq(TensorData(std::vector<double>{1, 2, 3})); }, {"f32", "f64"});
  expect_error([&] { a.assert_eq(TensorData(std::vector<float>{1, 2, 3.0000005f})); }, {});
}

TEST(Closeness, AssertApproxEqInfinitiesMustMatch) {
  // tensor_data.h: "infinities must match exactly".
  TensorData inf(std::vector<float>{INFINITY});
  TensorData neg_inf(std::vector<float>{-INFINITY});
  // Infinities match only themselves: inf vs -inf is not within any tolerance.
  expect_error([&] { inf.assert_approx_eq(neg_inf); }, {"assert_approx_eq"});
  // Nor is a finite value against inf.
  expect_error([&] { TensorData(std::vector<float>{1.0f}).assert_approx_eq(inf); },
               {"assert_approx_eq"});
  // An exact comparison (tolerance 0) gives inf * 0 = NaN as the bound and does throw.
  expect_error([&] { inf.assert_eq(neg_inf); }, {});
}

// Splits a report into its lines.
std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(Closeness, CheckClosenessReport) {
  Device cpu = Device::cpu();
  // The Burn Book example.
  auto a = Tensor<1>::from_floats({1.0, 2.0, 3.0, 4.0, 5.0, 6.001, 7.002, 8.003, 9.004, 10.1}, cpu);
  auto b =
      Tensor<1>::from_floats({1.0, 2.0, 3.0, 4.000, 5.0, 6.0, 7.001, 8.002, 9.003, 10.004}, cpu);
  ::testing::internal::CaptureStdout();
  std::string report = check_closeness(a, b);
  std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(printed, report);
  // Counts of |a - b| <= eps over the f32 values (worked out with numpy on float32 inputs):
  // 1e-1: 10, 1e-2: 9, 1e-3: 8 (8.003f - 8.002f = 0.0010004), 1e-4 .. 1e-8: 5.
  struct Row {
    const char* eps;
    const char* count;
    const char* tag;
  };
  std::vector<Row> rows = {{"1e-01", "(10/10)", "[PASS]"}, {"1e-02", "(9/10)", "[WARN]"},
                           {"1e-03", "(8/10)", "[FAIL]"},  {"1e-04", "(5/10)", "[FAIL]"},
                           {"1e-05", "(5/10)", "[FAIL]"},  {"1e-06", "(5/10)", "[FAIL]"},
                           {"1e-07", "(5/10)", "[FAIL]"},  {"1e-08", "(5/10)", "[FAIL]"}};
  std::vector<std::string> ls = lines(report);
  ASSERT_EQ(ls.size(), rows.size() + 1) << report;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string& l = ls[i + 1];
    EXPECT_NE(l.find(rows[i].eps), std::string::npos) << l;
    EXPECT_NE(l.find(rows[i].count), std::string::npos) << l;
    EXPECT_NE(l.find(rows[i].tag), std::string::npos) << l;
  }
  EXPECT_NE(ls[1].find("100.00%"), std::string::npos) << ls[1];
  EXPECT_NE(ls[2].find("90.00%"), std::string::npos) << ls[2];
  EXPECT_NE(ls[4].find("50.00%"), std::string::npos) << ls[4];
}

TEST(Closeness, CheckClosenessIdenticalAndShapeMismatch) {
  Device cpu = Device::cpu();
  auto a = Tensor<2>::from_floats({{1, 2}, {3, 4}}, cpu);
  std::string same = check_closeness(a.raw(), a.raw(), nullptr);
  std::vector<std::string> ls = lines(same);
  ASSERT_EQ(ls.size(), 9u) << same;
  for (size_t i = 1; i < ls.size(); ++i) {
    EXPECT_NE(ls[i].find("(4/4)"), std::string::npos) << ls[i];
    EXPECT_NE(ls[i].find("[PASS]"), std::string::npos) << ls[i];
  }
  auto c = Tensor<2>::from_floats({{1, 2, 3, 4}}, cpu);
  std::string diff = check_closeness(a.raw(), c.raw(), nullptr);
  EXPECT_EQ(diff.find("[PASS]"), std::string::npos) << diff;
  EXPECT_NE(diff.find("[2, 2]"), std::string::npos) << diff;
  EXPECT_NE(diff.find("[1, 4]"), std::string::npos) << diff;
}

}  // namespace
}  // namespace ember
