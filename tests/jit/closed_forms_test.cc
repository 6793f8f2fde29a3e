// Composite ops and gradients on the GPU test device against closed forms computed here in double
// with plain loops, fused and unfused. The rest of the GPU suites compare with the CPU, which runs
// the same decompositions (softmax, gelu, var, ... written with primitives) and the same VJP
// rules, so a bug in one of those would give the same wrong answer on both devices and pass
// there; here it cannot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::host_uniform;
using Mat = std::vector<double>;  // row-major

constexpr int64_t kRows = 5, kCols = 13;

// f32 device results against double closed forms: |got - want| <= tol * (1 + |want|). The
// default is a few f32 roundings of the values here (|x| <= 2, rows of 13); a wrong
// decomposition or rule is off by orders of magnitude more.
constexpr double kTol = 2e-5;

void expect_close(const RawTensor& got, const Mat& want, const std::string& what,
                  double tol = kTol) {
  SCOPED_TRACE(what);
  std::vector<double> g = got.to_data().to_vec<double>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(g[i], want[i], tol * (1 + std::abs(want[i]))) << "element " << i;
  }
}

// Runs `check` on the test device with fusion on, then off.
void fused_and_unfused(const std::function<void(const Device&)>& check) {
  EMBER_REQUIRE_GPU_DEVICE();
  for (bool fused : {true, false}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    FusionGuard fusion(fused);
    check(testing::gpu_device());
  }
}

Mat host(uint32_t seed, int64_t rows = kRows, int64_t cols = kCols, double lo = -2, double hi = 2) {
  return host_uniform({rows, cols}, seed, lo, hi).to_vec<double>();
}

Tensor<2> upload(uint32_t seed, const Device& dev, int64_t rows = kRows, int64_t cols = kCols,
                 double lo = -2, double hi = 2) {
  return Tensor<2>::from_data(host_uniform({rows, cols}, seed, lo, hi), dev);
}

// Applies `f` to each row of x (rows x cols), or to each column when `dim` is 0.
Mat along(const Mat& x, int64_t rows, int64_t cols, int dim,
          const std::function<std::vector<double>(const std::vector<double>&)>& f) {
  Mat out(x.size());
  const int64_t lines = dim == 1 ? rows : cols, len = dim == 1 ? cols : rows;
  for (int64_t l = 0; l < lines; ++l) {
    auto at = [&](int64_t i) { return dim == 1 ? l * cols + i : i * cols + l; };
    std::vector<double> line(len);
    for (int64_t i = 0; i < len; ++i) line[i] = x[at(i)];
    std::vector<double> r = f(line);
    for (int64_t i = 0; i < len; ++i) out[at(i)] = r[i];
  }
  return out;
}

std::vector<double> softmax_line(const std::vector<double>& v) {
  double mx = *std::max_element(v.begin(), v.end()), sum = 0;
  for (double x : v) sum += std::exp(x - mx);
  std::vector<double> out;
  for (double x : v) out.push_back(std::exp(x - mx) / sum);
  return out;
}

std::vector<double> log_softmax_line(const std::vector<double>& v) {
  double mx = *std::max_element(v.begin(), v.end()), sum = 0;
  for (double x : v) sum += std::exp(x - mx);
  std::vector<double> out;
  for (double x : v) out.push_back(x - mx - std::log(sum));
  return out;
}

double phi(double x) { return std::exp(-x * x / 2) / std::sqrt(2 * M_PI); }  // normal density
double big_phi(double x) { return 0.5 * (1 + std::erf(x / std::sqrt(2.0))); }

// ---------------------------------------------------------------- forward

TEST(ClosedForms, SoftmaxAndLogSoftmax) {
  const Mat x = host(1);
  fused_and_unfused([&](const Device& dev) {
    auto t = upload(1, dev);
    for (int dim : {0, 1}) {
      SCOPED_TRACE("dim " + std::to_string(dim));
      auto s = activation::softmax(t, dim), ls = activation::log_softmax(t, dim),
           sm = activation::softmin(t, dim);
      expect_close(s.raw(), along(x, kRows, kCols, dim, softmax_line), "softmax");
      expect_close(ls.raw(), along(x, kRows, kCols, dim, log_softmax_line), "log_softmax");
      Mat neg = x;
      for (double& v : neg) v = -v;
      expect_close(sm.raw(), along(neg, kRows, kCols, dim, softmax_line), "softmin");
    }
  });
}

TEST(ClosedForms, GeluSigmoidSiluTanh) {
  const Mat x = host(2, kRows, kCols, -4, 4);
  Mat gelu, sigmoid, silu, tanh;
  for (double v : x) {
    gelu.push_back(v * big_phi(v));
    sigmoid.push_back(1 / (1 + std::exp(-v)));
    silu.push_back(v / (1 + std::exp(-v)));
    tanh.push_back(std::tanh(v));
  }
  fused_and_unfused([&](const Device& dev) {
    auto t = upload(2, dev, kRows, kCols, -4, 4);
    expect_close(activation::gelu(t).raw(), gelu, "gelu");
    expect_close(activation::sigmoid(t).raw(), sigmoid, "sigmoid");
    expect_close(activation::silu(t).raw(), silu, "silu");
    expect_close(t.tanh().raw(), tanh, "tanh");
  });
}

// Mean and variance along each dim (unbiased and biased), and the layer-norm expression built
// from them.
TEST(ClosedForms, MeanVarAndLayerNorm) {
  const Mat x = host(3);
  auto stats = [&](int dim, int correction, bool want_var) {
    const int64_t lines = dim == 1 ? kRows : kCols, len = dim == 1 ? kCols : kRows;
    Mat out;
    for (int64_t l = 0; l < lines; ++l) {
      auto at = [&](int64_t i) { return dim == 1 ? l * kCols + i : i * kCols + l; };
      double mean = 0, ss = 0;
      for (int64_t i = 0; i < len; ++i) mean += x[at(i)];
      mean /= static_cast<double>(len);
      for (int64_t i = 0; i < len; ++i) ss += (x[at(i)] - mean) * (x[at(i)] - mean);
      out.push_back(want_var ? ss / static_cast<double>(len - correction) : mean);
    }
    return out;
  };
  // Layer norm over rows: (x - mean) / sqrt(biased var + 1e-5).
  Mat ln(x.size());
  const Mat row_mean = stats(1, 0, false), row_var = stats(1, 0, true);
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kCols; ++c)
      ln[r * kCols + c] = (x[r * kCols + c] - row_mean[r]) / std::sqrt(row_var[r] + 1e-5);
  fused_and_unfused([&](const Device& dev) {
    auto t = upload(3, dev);
    for (int dim : {0, 1}) {
      SCOPED_TRACE("dim " + std::to_string(dim));
      expect_close(t.mean_dim(dim).raw(), stats(dim, 0, false), "mean_dim");
      expect_close(t.var(dim).raw(), stats(dim, 1, true), "var");
      expect_close(t.var_bias(dim).raw(), stats(dim, 0, true), "var_bias");
    }
    auto [var, mean] = t.var_mean_bias(1);
    expect_close(((t - mean) / (var + 1e-5).sqrt()).raw(), ln, "layer norm");
  });
}

// ---------------------------------------------------------------- gradients
// loss = sum(f(x) * u) with fixed weights u, so d loss / d f = u; the forward value and the
// gradients are read after one flush that holds both (forward and backward fused together).

TEST(ClosedForms, SoftmaxAndLogSoftmaxGradients) {
  const Mat x = host(4), u = host(5);
  fused_and_unfused([&](const Device& dev) {
    for (int dim : {0, 1}) {
      SCOPED_TRACE("dim " + std::to_string(dim));
      auto t = upload(4, dev).require_grad();
      auto w = upload(5, dev);
      auto s = activation::softmax(t, dim);
      auto ls = activation::log_softmax(t, dim);
      Gradients gs = (s * w).sum().backward();
      Gradients gls = (ls * w).sum().backward();
      // softmax: dx_i = s_i (u_i - sum_j u_j s_j); log_softmax: dx_i = u_i - s_i sum_j u_j.
      Mat sx = along(x, kRows, kCols, dim, softmax_line), dsoft(x.size()), dlog(x.size());
      Mat us(x.size());
      for (size_t i = 0; i < x.size(); ++i) us[i] = u[i] * sx[i];
      Mat dot = along(us, kRows, kCols, dim, [](const std::vector<double>& v) {
        double sum = 0;
        for (double e : v) sum += e;
        return std::vector<double>(v.size(), sum);
      });
      Mat usum = along(u, kRows, kCols, dim, [](const std::vector<double>& v) {
        double sum = 0;
        for (double e : v) sum += e;
        return std::vector<double>(v.size(), sum);
      });
      for (size_t i = 0; i < x.size(); ++i) {
        dsoft[i] = sx[i] * (u[i] - dot[i]);
        dlog[i] = u[i] - sx[i] * usum[i];
      }
      expect_close(s.raw(), sx, "softmax");
      expect_close(t.grad(gs).value().raw(), dsoft, "softmax gradient");
      expect_close(t.grad(gls).value().raw(), dlog, "log_softmax gradient");
    }
  });
}

TEST(ClosedForms, GeluTanhSigmoidGradients) {
  const Mat x = host(6, kRows, kCols, -3, 3), u = host(7);
  Mat dgelu, dtanh, dsigmoid;
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i], th = std::tanh(v), sg = 1 / (1 + std::exp(-v));
    dgelu.push_back(u[i] * (big_phi(v) + v * phi(v)));
    dtanh.push_back(u[i] * (1 - th * th));
    dsigmoid.push_back(u[i] * sg * (1 - sg));
  }
  fused_and_unfused([&](const Device& dev) {
    auto t = upload(6, dev, kRows, kCols, -3, 3).require_grad();
    auto w = upload(7, dev);
    Gradients g1 = (activation::gelu(t) * w).sum().backward();
    Gradients g2 = (t.tanh() * w).sum().backward();
    Gradients g3 = (activation::sigmoid(t) * w).sum().backward();
    expect_close(t.grad(g1).value().raw(), dgelu, "gelu gradient");
    expect_close(t.grad(g2).value().raw(), dtanh, "tanh gradient");
    expect_close(t.grad(g3).value().raw(), dsigmoid, "sigmoid gradient");
  });
}

// loss = sum((A B) * U): dA = U B^T, dB = A^T U.
TEST(ClosedForms, MatmulGradients) {
  const int64_t m = 6, k = 9, n = 7;
  const Mat a = host(8, m, k), b = host(9, k, n), u = host(10, m, n);
  Mat c(m * n, 0.0), da(m * k, 0.0), db(k * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t l = 0; l < k; ++l) {
        c[i * n + j] += a[i * k + l] * b[l * n + j];
        da[i * k + l] += u[i * n + j] * b[l * n + j];
        db[l * n + j] += a[i * k + l] * u[i * n + j];
      }
  fused_and_unfused([&](const Device& dev) {
    auto ta = upload(8, dev, m, k).require_grad();
    auto tb = upload(9, dev, k, n).require_grad();
    auto tu = upload(10, dev, m, n);
    auto prod = ta.matmul(tb);
    Gradients g = (prod * tu).sum().backward();
    expect_close(prod.raw(), c, "matmul");
    expect_close(ta.grad(g).value().raw(), da, "d A");
    expect_close(tb.grad(g).value().raw(), db, "d B");
  });
}

// d/dx of sum(sum_dim(x, 1) * v) is v broadcast along the row; of mean_dim, v / cols; of
// mean(x) * 3, 3 / numel; of sum(var(x, 1) * v), 2 v (x - mean) / (cols - 1).
TEST(ClosedForms, SumMeanVarGradients) {
  const Mat x = host(11), v = host(12, kRows, 1);
  Mat dsum(x.size()), dmean(x.size()), dall(x.size(), 3.0 / (kRows * kCols)), dvar(x.size());
  for (int64_t r = 0; r < kRows; ++r) {
    double mean = 0;
    for (int64_t c = 0; c < kCols; ++c) mean += x[r * kCols + c] / kCols;
    for (int64_t c = 0; c < kCols; ++c) {
      dsum[r * kCols + c] = v[r];
      dmean[r * kCols + c] = v[r] / kCols;
      dvar[r * kCols + c] = 2 * v[r] * (x[r * kCols + c] - mean) / (kCols - 1);
    }
  }
  fused_and_unfused([&](const Device& dev) {
    auto t = upload(11, dev).require_grad();
    auto w = upload(12, dev, kRows, 1);
    Gradients g1 = (t.sum_dim(1) * w).sum().backward();
    Gradients g2 = (t.mean_dim(1) * w).sum().backward();
    Gradients g3 = (t.mean() * 3.0).sum().backward();
    Gradients g4 = (t.var(1) * w).sum().backward();
    expect_close(t.grad(g1).value().raw(), dsum, "sum_dim gradient");
    expect_close(t.grad(g2).value().raw(), dmean, "mean_dim gradient");
    expect_close(t.grad(g3).value().raw(), dall, "mean gradient");
    expect_close(t.grad(g4).value().raw(), dvar, "var gradient");
  });
}

}  // namespace
}  // namespace ember
