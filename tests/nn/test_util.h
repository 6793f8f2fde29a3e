#pragma once
// Helpers of the nn tests: host copies of tensors, elementwise comparison against references
// computed in the test, error checks, f64 copies of modules and central-difference gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "nn/nn.h"
#include "tests/test_device.h"

namespace ember::nn::testing {

// The CPU, or EMBER_NN_TEST_DEVICE (vulkan:0, cuda:0) to run the suite on another device.
inline Device dev() {
  static const Device d = [] {
    const char* env = std::getenv("EMBER_NN_TEST_DEVICE");
    return env && *env ? ::ember::testing::parse_test_device(env) : Device::cpu();
  }();
  return d;
}

template <int D, class K>
std::vector<double> host(const Tensor<D, K>& t) {
  return t.to_data().template to_vec<double>();
}

inline void expect_near_all(const std::vector<double>& got, const std::vector<double>& want,
                            double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << "element " << i;
  }
}

template <int D>
void expect_tensor(const Tensor<D>& t, const Shape& shape, const std::vector<double>& want,
                   double tol = 1e-5) {
  ASSERT_EQ(t.shape(), shape) << t.shape().to_string();
  expect_near_all(host(t), want, tol);
}

// Expects f() to throw ember::Error whose message contains each of `parts`.
template <class F>
void expect_error(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "expected ember::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    for (const auto& p : parts) {
      EXPECT_NE(msg.find(p), std::string::npos) << "message '" << msg << "' lacks '" << p << "'";
    }
  }
}

template <int D>
Tensor<D> from_host(const std::vector<double>& values, const Shape& shape,
                    DType dtype = DType::F32) {
  return Tensor<D>::from_data(TensorData(values, shape).convert(dtype), dev());
}

// A copy of m with every parameter and buffer in f64 (ids kept), for gradient checks.
template <Module M>
M to_f64(const M& m) {
  return map(m, [](const std::string&, const auto& p) {
    if constexpr (is_param_v<std::decay_t<decltype(p)>>) {
      return p.with_value(p.val().cast(DType::F64));
    } else {
      return p.with_value(p.value().cast(DType::F64));
    }
  });
}

// The derivative of loss(x) with respect to every element of x, by central differences.
template <int D>
std::vector<double> numeric_grad(const Tensor<D>& x, const std::function<double(Tensor<D>)>& loss,
                                 double h = 1e-6) {
  std::vector<double> v = host(x), g(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    std::vector<double> up = v, down = v;
    up[i] += h;
    down[i] -= h;
    double lu = loss(from_host<D>(up, x.shape(), DType::F64));
    double ld = loss(from_host<D>(down, x.shape(), DType::F64));
    g[i] = (lu - ld) / (2 * h);
  }
  return g;
}

// Checks the gradient of `loss(module, x)` with respect to x and to every parameter of the
// module (both in f64) against central differences.
template <Module M, int D>
void expect_grads(const M& module, const Tensor<D>& x_in,
                  const std::function<Tensor<1>(const M&, const Tensor<D>&)>& loss,
                  double tol = 1e-6) {
  M m = to_f64(module);
  Tensor<D> x = x_in.cast(DType::F64).detach().require_grad();
  Gradients grads = loss(m, x).backward();
  auto value = [&](const M& mm, const Tensor<D>& xx) {
    return loss(mm, xx).template into_scalar<double>();
  };
  expect_near_all(host(x.grad(grads).value()),
                  numeric_grad<D>(x, [&](Tensor<D> xx) { return value(m, xx); }), tol);
  visit_params(m, [&](const std::string& path, const auto& p) {
    using P = std::decay_t<decltype(p)>;
    using T = std::decay_t<decltype(p.val())>;
    SCOPED_TRACE(path);
    auto g = p.grad(grads);
    ASSERT_TRUE(g.has_value()) << "no gradient for " << path;
    auto with = [&](T v) {
      return map_params(m, [&](const std::string& q_path, const auto& q) {
        if constexpr (std::is_same_v<std::decay_t<decltype(q)>, P>) {
          if (q_path == path) return q.with_value(v);
        }
        return q;
      });
    };
    auto numeric =
        numeric_grad<T::kRank>(p.val().detach(), [&](T v) { return value(with(v), x.detach()); });
    expect_near_all(host(*g), numeric, tol);
  });
}

}  // namespace ember::nn::testing
