// What backward() weighs before starting the forward pass alone (frontend/detail/forward_flush.h):
// the bytes of product operands the backward would recompute. Recording only: the pending
// tensors here are never computed, so the large shapes cost no memory.
#include "frontend/detail/forward_flush.h"

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

int64_t recomputed(const Tensor<1>& loss) {
  return detail::recomputed_operand_bytes(detail::topological_order(loss.raw().tape().get()));
}

Tensor<2> normal(int64_t rows, int64_t cols) {
  return Tensor<2>::random({rows, cols}, Distribution::normal(0, 1), Device::cpu());
}

// A computed input: a constant on the tape, read, never recomputed.
Tensor<2> stored(int64_t rows, int64_t cols) {
  Tensor<2> t = normal(rows, cols);
  sync(Device::cpu());
  return t;
}

// Two layers: relu(x w1 + 1) is the second products' operand. The balanced policy keeps the first
// product's output, not the add or the relu, so the backward recomputes the relu's 4 x 8 floats,
// once for both products (one reads it through a transpose).
TEST(ForwardFlush, CountsAnMlpHiddenActivationOnce) {
  auto x = stored(4, 6), y = stored(4, 2);  // before h: a sync would compute h
  auto w1 = normal(6, 8).require_grad(), w2 = normal(8, 3).require_grad();
  auto h = activation::relu(x.matmul(w1) + 1.0);
  auto loss = h.matmul(w2).sum() + h.transpose().matmul(y).sum();
  h = Tensor<2>();  // held by nothing but the tape
  EXPECT_EQ(recomputed(loss), 4 * 8 * 4);
}

// Recorded under save_all, the tape keeps the relu: nothing is recomputed.
TEST(ForwardFlush, ValuesTheTapeKeepsCountNothing) {
  auto x = stored(4, 6);
  auto w1 = normal(6, 8).require_grad(), w2 = normal(8, 3).require_grad();
  CheckpointingGuard keep_all(Checkpointing::save_all);
  auto h = activation::relu(x.matmul(w1) + 1.0);
  auto loss = h.matmul(w2).sum();
  h = Tensor<2>();
  EXPECT_EQ(recomputed(loss), 0);
}

// An operand the program still holds, a product's own output and a computed input are read.
TEST(ForwardFlush, HeldOperandsProductOutputsAndInputsCountNothing) {
  auto x = stored(4, 6);
  auto w1 = normal(6, 8).require_grad(), w2 = normal(8, 3).require_grad();
  auto h = activation::relu(x.matmul(w1));
  auto loss = h.matmul(w2).sum() + x.matmul(w1).matmul(w2).sum();
  EXPECT_EQ(recomputed(loss), 0);  // h held
}

// A pending random operand is a source: the backward remakes it for the weight's gradient. A
// tensor without a tape enters it as a recipe per use, so two uses count twice.
TEST(ForwardFlush, CountsAPendingRandomOperandPerUse) {
  auto w = normal(6, 8).require_grad();
  auto x = normal(4, 6);
  EXPECT_EQ(recomputed(x.matmul(w).sum()), 4 * 6 * 4);
  EXPECT_EQ(recomputed(x.matmul(w).sum() + x.matmul(w).sum()), 2 * 4 * 6 * 4);
}

// A transformer-sized softmax (8 x 16 heads of 1024 x 1024 f32, 512 MiB) is over the budget; an
// MLP's hidden activations (1024 x 2048 f32, 8 MiB, and as much of pending input) are within it.
TEST(ForwardFlush, AttentionProbabilitiesExceedTheBudgetAnMlpsActivationsDoNot) {
  auto q = Tensor<3>::random({128, 1024, 64}, Distribution::normal(0, 1), Device::cpu());
  auto k = q.require_grad();
  auto p = activation::softmax(q.matmul(k.swap_dims(1, 2)), 2);
  auto attention = p.matmul(q).sum().reshape({int64_t{1}});
  p = Tensor<3>();
  // p, and q once per use (it has no tape)
  EXPECT_EQ(recomputed(attention), int64_t{128} * 1024 * (1024 + 2 * 64) * 4);
  EXPECT_GT(recomputed(attention), detail::kEarlyFlushRecomputeBytes);

  auto w = normal(2048, 2048).require_grad();
  auto hidden = activation::relu(normal(1024, 2048).matmul(w));
  auto mlp = hidden.matmul(w).sum();
  hidden = Tensor<2>();
  EXPECT_EQ(recomputed(mlp), int64_t{2} * 1024 * 2048 * 4);
  EXPECT_LE(recomputed(mlp), detail::kEarlyFlushRecomputeBytes);
}

}  // namespace
}  // namespace ember
