#include "nn/rnn.h"

#include <vector>

#include "frontend/activation.h"
#include "frontend/module.h"

namespace ember::nn {
namespace {

Tensor<2> gate(const Tensor<2>& parts, int64_t index, int64_t d_hidden) {
  return parts.narrow(1, index * d_hidden, d_hidden);
}

Tensor<2> zeros_state(const Tensor<3>& x, int64_t d_hidden) {
  return Tensor<2>::zeros(Shape{x.shape()[0], d_hidden}, x.device(), x.dtype());
}

// Runs `step` over the sequence (last position first when reversed) and returns the hidden state
// of every position [batch, seq, d_hidden] with the last state. x is batch-first here.
template <class State, class Step, class Hidden>
std::pair<Tensor<3>, State> scan(const GateWeights& g, const Tensor<3>& x, bool reverse,
                                 State state, Step&& step, Hidden&& hidden_of) {
  Tensor<3> parts = g.input_part(x);
  const int64_t seq = x.shape()[1];
  std::vector<Tensor<3>> outs(static_cast<size_t>(seq));
  for (int64_t i = 0; i < seq; ++i) {
    const int64_t t = reverse ? seq - 1 - i : i;
    state = step(parts.narrow(1, t, 1).squeeze<2>(1), state);
    outs[static_cast<size_t>(t)] = hidden_of(state).template unsqueeze_dim<3>(1);
  }
  return {Tensor<3>::cat(outs, 1), std::move(state)};
}

// Checks the input and returns it batch-first.
Tensor<3> batch_major(const char* layer, const Tensor<3>& x, bool batch_first,
                      const GateWeights& g) {
  detail::check_dim_size(layer, x.raw(), 2, g.d_input(), "input features");
  if (x.shape()[0] == 0 || x.shape()[1] == 0) {
    detail::throw_layer_error(
        layer, "needs a non-empty sequence and batch, got " + x.raw().type().to_string());
  }
  return batch_first ? x : x.swap_dims(0, 1);
}

void check_state(const char* layer, const Tensor<2>& s, const Tensor<3>& x, int64_t d_hidden) {
  if (s.shape() != Shape{x.shape()[0], d_hidden}) {
    detail::throw_layer_error(
        layer, "state must be [batch, d_hidden] = [" + std::to_string(x.shape()[0]) + ", " +
                   std::to_string(d_hidden) + "], got " + s.shape().to_string());
  }
}

Tensor<3> time_layout(const Tensor<3>& y, bool batch_first) {
  return batch_first ? y : y.swap_dims(0, 1);
}

}  // namespace

Tensor<3> GateWeights::input_part(const Tensor<3>& x) const {
  const Shape& s = x.shape();
  Tensor<2> y = x.flatten<2>(0, 1).matmul(weight_ih.val());
  if (bias_ih) y = y + bias_ih->val().unsqueeze<2>();
  return y.reshape<3>(Shape{s[0], s[1], y.shape()[1]});
}

Tensor<2> GateWeights::hidden_part(const Tensor<2>& h) const {
  Tensor<2> y = h.matmul(weight_hh.val());
  return bias_hh ? y + bias_hh->val().unsqueeze<2>() : y;
}

GateWeights init_gates(int64_t d_input, int64_t d_hidden, int64_t gates, bool bias,
                       const Initializer& initializer, const Device& device) {
  detail::check_positive("recurrent config", "d_input", static_cast<double>(d_input));
  detail::check_positive("recurrent config", "d_hidden", static_cast<double>(d_hidden));
  GateWeights g;
  g.weight_ih =
      initializer.init_param<2>(Shape{d_input, gates * d_hidden}, device, d_input, d_hidden);
  g.weight_hh =
      initializer.init_param<2>(Shape{d_hidden, gates * d_hidden}, device, d_hidden, d_hidden);
  if (bias) {
    g.bias_ih = initializer.init_param<1>(Shape{gates * d_hidden}, device, d_input, d_hidden);
    g.bias_hh = initializer.init_param<1>(Shape{gates * d_hidden}, device, d_hidden, d_hidden);
  }
  return g;
}

// ---- Lstm
LstmState Lstm::step(const Tensor<2>& input_part, const LstmState& s) const {
  const int64_t h = d_hidden();
  Tensor<2> parts = input_part + gates.hidden_part(s.hidden);
  Tensor<2> i = activation::sigmoid(gate(parts, 0, h)), f = activation::sigmoid(gate(parts, 1, h));
  Tensor<2> g = gate(parts, 2, h).tanh(), o = activation::sigmoid(gate(parts, 3, h));
  Tensor<2> cell = f * s.cell + i * g;
  return {cell, o * cell.tanh()};
}

std::pair<Tensor<3>, LstmState> Lstm::forward(const Tensor<3>& x_in,
                                              const std::optional<LstmState>& state,
                                              bool reverse) const {
  Tensor<3> x = batch_major("Lstm", x_in, batch_first, gates);
  LstmState s = state.value_or(LstmState{zeros_state(x, d_hidden()), zeros_state(x, d_hidden())});
  check_state("Lstm", s.cell, x, d_hidden());
  check_state("Lstm", s.hidden, x, d_hidden());
  // The whole recurrence is one recorded op (module::lstm_recurrence): the graph does not grow
  // with the sequence, and a fused kernel runs it where the device has one.
  Tensor<3> xp = gates.input_part(x);
  if (gates.bias_hh) xp = xp + gates.bias_hh->val().unsqueeze<3>();
  const int64_t h = d_hidden(), steps = x.shape()[1];
  Tensor<3> packed = module::lstm_recurrence(xp, gates.weight_hh.val(), s.hidden, s.cell, reverse);
  Tensor<3> y = packed.narrow(2, 5 * h, h);
  // The state after the last step run: the first position's when reversed.
  Tensor<2> last = packed.narrow(1, reverse ? 0 : steps - 1, 1).squeeze<2>(1);
  LstmState out{last.narrow(1, 4 * h, h), last.narrow(1, 5 * h, h)};
  return {time_layout(y, batch_first), out};
}

Lstm LstmConfig::init(const Device& device) const {
  return {init_gates(d_input, d_hidden, 4, bias, initializer, device), batch_first};
}

std::pair<Tensor<3>, BiLstmState> BiLstm::forward(const Tensor<3>& x,
                                                  const std::optional<BiLstmState>& state) const {
  std::optional<LstmState> fwd, rev;
  if (state) {
    fwd = LstmState{state->cell.narrow(0, 0, 1).squeeze<2>(0),
                    state->hidden.narrow(0, 0, 1).squeeze<2>(0)};
    rev = LstmState{state->cell.narrow(0, 1, 1).squeeze<2>(0),
                    state->hidden.narrow(0, 1, 1).squeeze<2>(0)};
  }
  auto [yf, sf] = forward_lstm.forward(x, fwd);
  auto [yr, sr] = reverse_lstm.forward(x, rev, true);
  auto stack = [](const Tensor<2>& a, const Tensor<2>& b) {
    return Tensor<3>::cat({a.unsqueeze<3>(), b.unsqueeze<3>()}, 0);
  };
  return {Tensor<3>::cat({yf, yr}, 2), {stack(sf.cell, sr.cell), stack(sf.hidden, sr.hidden)}};
}

BiLstm BiLstmConfig::init(const Device& device) const {
  LstmConfig c = LstmConfig(d_input, d_hidden, bias)
                     .with_batch_first(batch_first)
                     .with_initializer(initializer);
  return {c.init(device), c.init(device)};
}

// ---- Gru
Tensor<2> Gru::step(const Tensor<2>& ip, const Tensor<2>& hidden) const {
  const int64_t h = d_hidden();
  Tensor<2> r, z, n;
  if (reset_after) {
    Tensor<2> hp = gates.hidden_part(hidden);
    r = activation::sigmoid(gate(ip, 0, h) + gate(hp, 0, h));
    z = activation::sigmoid(gate(ip, 1, h) + gate(hp, 1, h));
    n = (gate(ip, 2, h) + r * gate(hp, 2, h)).tanh();
  } else {
    // The reset gate scales h before its product with W_hn: the n columns are a second matmul.
    const Tensor<2>& w = gates.weight_hh.val();
    Tensor<2> rz = hidden.matmul(w.narrow(1, 0, 2 * h));
    if (gates.bias_hh) rz = rz + gates.bias_hh->val().narrow(0, 0, 2 * h).unsqueeze<2>();
    r = activation::sigmoid(gate(ip, 0, h) + gate(rz, 0, h));
    z = activation::sigmoid(gate(ip, 1, h) + gate(rz, 1, h));
    Tensor<2> hn = (r * hidden).matmul(w.narrow(1, 2 * h, h));
    if (gates.bias_hh) hn = hn + gates.bias_hh->val().narrow(0, 2 * h, h).unsqueeze<2>();
    n = (gate(ip, 2, h) + hn).tanh();
  }
  return n + z * (hidden - n);  // (1 - z) n + z h
}

std::pair<Tensor<3>, Tensor<2>> Gru::forward(const Tensor<3>& x_in,
                                             const std::optional<Tensor<2>>& state,
                                             bool reverse) const {
  Tensor<3> x = batch_major("Gru", x_in, batch_first, gates);
  Tensor<2> s = state.value_or(zeros_state(x, d_hidden()));
  check_state("Gru", s, x, d_hidden());
  auto [y, last] = scan(
      gates, x, reverse, s, [&](const Tensor<2>& p, const Tensor<2>& st) { return step(p, st); },
      [](const Tensor<2>& st) { return st; });
  return {time_layout(y, batch_first), last};
}

Gru GruConfig::init(const Device& device) const {
  return {init_gates(d_input, d_hidden, 3, bias, initializer, device), reset_after, batch_first};
}

std::pair<Tensor<3>, Tensor<3>> BiGru::forward(const Tensor<3>& x,
                                               const std::optional<Tensor<3>>& state) const {
  std::optional<Tensor<2>> fwd, rev;
  if (state) {
    fwd = state->narrow(0, 0, 1).squeeze<2>(0);
    rev = state->narrow(0, 1, 1).squeeze<2>(0);
  }
  auto [yf, sf] = forward_gru.forward(x, fwd);
  auto [yr, sr] = reverse_gru.forward(x, rev, true);
  return {Tensor<3>::cat({yf, yr}, 2), Tensor<3>::cat({sf.unsqueeze<3>(), sr.unsqueeze<3>()}, 0)};
}

BiGru BiGruConfig::init(const Device& device) const {
  GruConfig c = GruConfig(d_input, d_hidden, bias)
                    .with_reset_after(reset_after)
                    .with_batch_first(batch_first)
                    .with_initializer(initializer);
  return {c.init(device), c.init(device)};
}

// ---- Rnn
Tensor<2> Rnn::step(const Tensor<2>& ip, const Tensor<2>& hidden) const {
  Tensor<2> pre = ip + gates.hidden_part(hidden);
  return nonlinearity == "relu" ? activation::relu(pre) : pre.tanh();
}

std::pair<Tensor<3>, Tensor<2>> Rnn::forward(const Tensor<3>& x_in,
                                             const std::optional<Tensor<2>>& state,
                                             bool reverse) const {
  Tensor<3> x = batch_major("Rnn", x_in, batch_first, gates);
  Tensor<2> s = state.value_or(zeros_state(x, gates.d_hidden()));
  check_state("Rnn", s, x, gates.d_hidden());
  auto [y, last] = scan(
      gates, x, reverse, s, [&](const Tensor<2>& p, const Tensor<2>& st) { return step(p, st); },
      [](const Tensor<2>& st) { return st; });
  return {time_layout(y, batch_first), last};
}

Rnn RnnConfig::init(const Device& device) const {
  if (nonlinearity != "tanh" && nonlinearity != "relu") {
    detail::throw_layer_error("RnnConfig",
                              "nonlinearity must be tanh or relu, got '" + nonlinearity + "'");
  }
  return {init_gates(d_input, d_hidden, 1, bias, initializer, device), nonlinearity, batch_first};
}

}  // namespace ember::nn
