// What backward() weighs before starting the forward pass alone (frontend/detail/forward_flush.h):
// the bytes of product operands the backward would recompute. Recording only: nothing here is
// computed, so the large shapes cost no memory.
#include "frontend/detail/forward_flush.h"

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

int64_t recomputed(const Tensor<1>& loss, ir::Checkpointing policy = ir::Checkpointing::balanced) {
  return detail::recomputed_operand_bytes(detail::topological_order(loss.raw().tape().get()),
                                          policy);
}

Tensor<2> normal(int64_t rows, int64_t cols) {
  return Tensor<2>::random({rows, cols}, Distribution::normal(0, 1), Device::cpu());
}

// Two layers: relu(x w1 + 1) is the second product's operand. The policy keeps the first
// product's output, not the add or the relu, so the backward recomputes the relu's 4 x 8 floats.
TEST(ForwardFlush, CountsAnMlpHiddenActivationOnce) {
  auto w1 = normal(6, 8).require_grad(), w2 = normal(8, 3).require_grad();
  auto h = activation::relu(normal(4, 6).matmul(w1) + 1.0);
  auto loss = h.matmul(w2).sum() + h.transpose().matmul(normal(4, 2)).sum();
  h = Tensor<2>();  // held by nothing but the tape
  EXPECT_EQ(recomputed(loss), 4 * 8 * 4);
  EXPECT_EQ(recomputed(loss, ir::Checkpointing::save_all), 0);
}

// An operand the program still holds, or a product's own output, is read, not recomputed.
TEST(ForwardFlush, HeldOperandsAndProductOutputsCountNothing) {
  auto w1 = normal(6, 8).require_grad(), w2 = normal(8, 3).require_grad();
  auto h = activation::relu(normal(4, 6).matmul(w1));
  auto loss = h.matmul(w2).sum() + normal(4, 6).matmul(w1).matmul(w2).sum();
  EXPECT_EQ(recomputed(loss), 0);  // h held
}

// A transformer-sized softmax (8 x 16 heads of 1024 x 1024 f32, 512 MiB) is over the budget; an
// MLP's hidden activations (1024 x 2048 f32, 8 MiB) are within it.
TEST(ForwardFlush, AttentionProbabilitiesExceedTheBudgetAnMlpsActivationsDoNot) {
  auto q = Tensor<3>::random({128, 1024, 64}, Distribution::normal(0, 1), Device::cpu());
  auto k = q.require_grad();
  auto p = activation::softmax(q.matmul(k.swap_dims(1, 2)), 2);
  auto attention = p.matmul(q).sum().reshape({int64_t{1}});
  p = Tensor<3>();
  EXPECT_EQ(recomputed(attention), int64_t{128} * 1024 * 1024 * 4);
  EXPECT_GT(recomputed(attention), detail::kEarlyFlushRecomputeBytes);

  auto w = normal(2048, 2048).require_grad();
  auto hidden = activation::relu(normal(1024, 2048).matmul(w));
  auto mlp = hidden.matmul(w).sum();
  hidden = Tensor<2>();
  EXPECT_EQ(recomputed(mlp), int64_t{1024} * 2048 * 4);
  EXPECT_LE(recomputed(mlp), detail::kEarlyFlushRecomputeBytes);
}

}  // namespace
}  // namespace ember
