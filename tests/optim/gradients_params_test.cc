// GradientsParams: gradients of a backward pass keyed by the module's ParamIds.
#include <gtest/gtest.h>

#include "tests/optim/test_util.h"

namespace ember::optim {
namespace {

using testing::dev;
using testing::host;

TEST(GradientsParams, FromGradsKeysTrainableParamsById) {
  nn::Linear l = nn::LinearConfig(3, 2).init(dev());
  l.bias = l.bias->set_require_grad(false);
  auto x = testing::from_host<2>({1, 2, 3, -1, 0, 1}, Shape{2, 3});
  Gradients grads = l.forward(x).sum().backward();
  GradientsParams gp = GradientsParams::from_grads(grads, l);
  EXPECT_EQ(gp.size(), 1u);
  EXPECT_FALSE(gp.contains(l.bias->id()));
  // d sum(x W + b) / dW[i][o] = sum_r x[r][i]
  auto g = gp.get<2>(l.weight.id());
  ASSERT_TRUE(g.has_value());
  testing::expect_near_all(host(*g), {0, 0, 2, 2, 4, 4});
  EXPECT_THROW(gp.get<1>(l.weight.id()), Error);  // wrong rank
  ASSERT_TRUE(gp.remove<2>(l.weight.id()).has_value());
  EXPECT_TRUE(gp.empty());
  EXPECT_FALSE(gp.remove<2>(l.weight.id()).has_value());
}

}  // namespace
}  // namespace ember::optim
