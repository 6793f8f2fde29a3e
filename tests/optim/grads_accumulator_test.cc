// GradientsAccumulator: micro-batches accumulated give the whole batch's gradients and step.
#include <gtest/gtest.h>

#include "tests/optim/reference.h"

namespace ember::optim {
namespace {

using namespace testing;

// Gradients of sum((x W + b - y)^2) over rows [first, first + rows) of the fixed batch.
GradientsParams rows_grads(const nn::Linear& l, int first, int rows) {
  auto x = from_host<2>(kX, Shape{4, 3}).narrow(0, first, rows);
  auto y = from_host<2>(kY, Shape{4, 2}).narrow(0, first, rows);
  auto d = l.forward(x) - y;
  return GradientsParams::from_grads((d * d).sum().backward(), l);
}

TEST(GradientsAccumulator, MicroBatchesEqualTheWholeBatch) {
  nn::Linear model = fixed_linear();
  GradientsAccumulator acc;
  for (int first = 0; first < 4; first += 2) acc.accumulate(rows_grads(model, first, 2));
  EXPECT_EQ(acc.count(), 2);
  GradientsParams summed = acc.grads();
  EXPECT_EQ(acc.count(), 0);
  GradientsParams whole = rows_grads(model, 0, 4);
  expect_near_all(host(*summed.get<2>(model.weight.id())), host(*whole.get<2>(model.weight.id())));
  expect_near_all(host(*summed.get<1>(model.bias->id())), host(*whole.get<1>(model.bias->id())));
  // And the step taken with them is the whole batch's step.
  Adam a = AdamConfig().init(), b = AdamConfig().init();
  expect_near_all(params_of(a.step(0.1, model, std::move(summed))),
                  params_of(b.step(0.1, model, std::move(whole))));
  EXPECT_TRUE(acc.grads().empty());
}

TEST(GradientsAccumulator, MismatchedShapesThrow) {
  nn::ParamId id;
  GradientsParams a, b;
  a.register_grad(id, from_host<1>({1, 2}, Shape{2}));
  b.register_grad(id, from_host<1>({1, 2, 3}, Shape{3}));
  GradientsAccumulator acc;
  acc.accumulate(a);
  expect_error([&] { acc.accumulate(b); }, {"GradientsAccumulator", id.to_string()});
}

}  // namespace
}  // namespace ember::optim
