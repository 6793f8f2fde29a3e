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

void check_encoder_layer(const std::string& name, bool norm_first) {
  Fixture f(name);
  TransformerEncoder enc =
      TransformerEncoderConfig(8, 16, 2, 1).with_dropout(0).with_norm_first(norm_first).init(dev());
  enc.layers[0] = f.load(enc.layers[0]);
  auto x = f.tensor<3>("x");
  TransformerEncoderInput in{x, f.mask<2>("mask_pad"), std::nullopt, true};
  expect_tensor(enc.forward(in), f.shape("y"), f.values("y"), 1e-5);
  // The same causal mask as a tensor.
  in.causal = false;
  in.mask_attn = generate_autoregressive_mask(2, 5, dev());
  expect_tensor(enc.forward(in), f.shape("y"), f.values("y"), 1e-5);
}

TEST(SeqFixture, TransformerEncoderLayerMatchesPyTorch) {
  check_encoder_layer("encoder_layer_norm_last", false);
  check_encoder_layer("encoder_layer_norm_first", true);
}

void check_decoder_layer(const std::string& name, bool norm_first) {
  Fixture f(name);
  TransformerDecoder dec =
      TransformerDecoderConfig(8, 16, 2, 1).with_dropout(0).with_norm_first(norm_first).init(dev());
  dec.layers[0] = f.load(dec.layers[0]);
  TransformerDecoderInput in;
  in.target = f.tensor<3>("target");
  in.memory = f.tensor<3>("memory");
  in.memory_mask_pad = f.mask<2>("memory_mask_pad");
  in.target_mask_attn = generate_autoregressive_mask(2, 4, dev());
  expect_tensor(dec.forward(in), f.shape("y"), f.values("y"), 1e-5);
}

TEST(SeqFixture, TransformerDecoderLayerMatchesPyTorch) {
  check_decoder_layer("decoder_layer_norm_last", false);
  check_decoder_layer("decoder_layer_norm_first", true);
}

// The state of direction `d` of a PyTorch [directions, batch, hidden] state.
Tensor<2> direction(const Fixture& f, const std::string& name, int64_t d) {
  return f.tensor<3>(name).narrow(0, d, 1).squeeze<2>(0);
}

TEST(SeqFixture, LstmMatchesPyTorch) {
  Fixture f("lstm");
  Lstm lstm = f.load(LstmConfig(3, 4, true).init(dev()));
  auto [y, state] =
      lstm.forward(f.tensor<3>("x"), LstmState{direction(f, "c0", 0), direction(f, "h0", 0)});
  expect_tensor(y, f.shape("y"), f.values("y"), 1e-5);
  testing::expect_near_all(host(state.hidden), f.values("hn"), 1e-5);
  testing::expect_near_all(host(state.cell), f.values("cn"), 1e-5);
}

std::string bi_path(const std::string& path, const std::string& fwd, const std::string& rev) {
  if (path.starts_with(fwd)) return "fwd." + path.substr(fwd.size());
  return "rev." + path.substr(rev.size());
}

TEST(SeqFixture, BiLstmMatchesPyTorch) {
  Fixture f("bilstm");
  BiLstm m = f.load(BiLstmConfig(3, 4, true).init(dev()), [](const std::string& p) {
    return bi_path(p, "forward_lstm.", "reverse_lstm.");
  });
  auto [y, state] = m.forward(f.tensor<3>("x"), BiLstmState{f.tensor<3>("c0"), f.tensor<3>("h0")});
  expect_tensor(y, f.shape("y"), f.values("y"), 1e-5);
  expect_tensor(state.hidden, f.shape("hn"), f.values("hn"), 1e-5);
  expect_tensor(state.cell, f.shape("cn"), f.values("cn"), 1e-5);
}

TEST(SeqFixture, GruMatchesPyTorch) {
  Fixture f("gru");
  Gru gru = f.load(GruConfig(3, 4, true).init(dev()));
  auto [y, h] = gru.forward(f.tensor<3>("x"), direction(f, "h0", 0));
  expect_tensor(y, f.shape("y"), f.values("y"), 1e-5);
  testing::expect_near_all(host(h), f.values("hn"), 1e-5);
}

TEST(SeqFixture, BiGruMatchesPyTorch) {
  Fixture f("bigru");
  BiGru m = f.load(BiGruConfig(3, 4, true).init(dev()),
                   [](const std::string& p) { return bi_path(p, "forward_gru.", "reverse_gru."); });
  auto [y, h] = m.forward(f.tensor<3>("x"), f.tensor<3>("h0"));
  expect_tensor(y, f.shape("y"), f.values("y"), 1e-5);
  expect_tensor(h, f.shape("hn"), f.values("hn"), 1e-5);
}

TEST(SeqFixture, RnnMatchesPyTorch) {
  Fixture f("rnn_tanh");
  Rnn rnn = f.load(RnnConfig(3, 4, true).init(dev()));
  auto [y, h] = rnn.forward(f.tensor<3>("x"), direction(f, "h0", 0));
  expect_tensor(y, f.shape("y"), f.values("y"), 1e-5);
  testing::expect_near_all(host(h), f.values("hn"), 1e-5);
}

}  // namespace
}  // namespace ember::nn
