// Every differentiable op's gradient against central finite differences, in f64 on the CPU, under
// both checkpointing policies. The cases (and the ops left out, with the reason) are in
// grad_cases.h; a failure is named GradCheck.MatchesFiniteDifferences/<case>.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/frontend/grad_cases.h"

namespace ember {
namespace {

using testing::GradCase;

// sum(f(inputs) * w) for inputs given as host values, computed without recording a tape.
double loss_at(const GradCase& c, const std::vector<std::vector<double>>& values) {
  NoGradGuard no_grad;
  std::vector<RawTensor> xs;
  for (size_t k = 0; k < values.size(); ++k) {
    xs.push_back(testing::upload(values[k], c.inputs[k].shape, DType::F64, Device::cpu()));
  }
  std::vector<double> y = c.f(xs).to_data().to_vec<double>();
  std::vector<double> w = testing::grad_weights(static_cast<int64_t>(y.size()));
  double loss = 0;
  for (size_t i = 0; i < y.size(); ++i) loss += y[i] * w[i];
  return loss;
}

std::vector<std::vector<double>> input_values(const GradCase& c) {
  std::vector<std::vector<double>> values;
  for (const auto& in : c.inputs) values.push_back(in.values);
  return values;
}

// Central differences of the loss with respect to every element of input k.
std::vector<double> numeric_gradient(const GradCase& c, size_t k) {
  std::vector<std::vector<double>> values = input_values(c);
  std::vector<double> grad(values[k].size());
  for (size_t i = 0; i < grad.size(); ++i) {
    double x = values[k][i];
    values[k][i] = x + c.h;
    double up = loss_at(c, values);
    values[k][i] = x - c.h;
    double down = loss_at(c, values);
    values[k][i] = x;
    grad[i] = (up - down) / (2 * c.h);
  }
  return grad;
}

class GradCheck : public ::testing::TestWithParam<GradCase> {};

TEST_P(GradCheck, MatchesFiniteDifferences) {
  const GradCase& c = GetParam();
  ASSERT_TRUE(std::isfinite(loss_at(c, input_values(c)))) << "the forward value is not finite";
  std::vector<std::vector<double>> numeric;
  for (size_t k = 0; k < c.inputs.size(); ++k) numeric.push_back(numeric_gradient(c, k));
  for (Checkpointing policy : {Checkpointing::save_all, Checkpointing::balanced}) {
    SCOPED_TRACE(ir::checkpointing_name(policy));
    auto analytic = testing::analytic_gradients(c, DType::F64, Device::cpu(), policy);
    for (size_t k = 0; k < c.inputs.size(); ++k) {
      SCOPED_TRACE("input " + std::to_string(k));
      if (!c.connected) {
        EXPECT_FALSE(analytic[k].has_value()) << "no gradient should flow";
        for (double g : numeric[k]) EXPECT_EQ(g, 0.0);
        continue;
      }
      ASSERT_TRUE(analytic[k].has_value()) << "no gradient reported";
      ASSERT_EQ(analytic[k]->shape().to_string(), c.inputs[k].shape.to_string());
      ASSERT_EQ(analytic[k]->dtype(), DType::F64);
      std::vector<double> got = analytic[k]->to_vec<double>();
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i], numeric[k][i], c.tol * (1 + std::abs(numeric[k][i])))
            << "element " << i << " (x = " << c.inputs[k].values[i] << ")";
      }
    }
  }
}

// Names are the parameter names gtest prints (GradCheck.MatchesFiniteDifferences/exp).
INSTANTIATE_TEST_SUITE_P(, GradCheck, ::testing::ValuesIn(testing::grad_cases()),
                         [](const ::testing::TestParamInfo<GradCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace ember
