#pragma once
// Recurrent layers (Burn's nn::Lstm, BiLstm, Gru, BiGru and an Elman Rnn; PyTorch's nn.LSTM,
// nn.GRU and nn.RNN with one layer). The gates of a cell share one weight matrix each for the
// input and the hidden state, in PyTorch's gate order, so a step is one matmul of the hidden
// state plus the gates' nonlinearities and the state update; the input's part of every gate is
// one matmul over the whole sequence before the steps. An Lstm's steps are one recorded op
// (module::lstm_recurrence, a fused kernel on CUDA); the other layers record each step's ops,
// the same every step, so the engine's plan cache serves every step after the first.
#include <optional>
#include <string>
#include <utility>

#include "nn/checks.h"
#include "nn/config.h"
#include "nn/initializer.h"
#include "nn/module.h"

namespace ember::nn {

// The weights of the gates of a recurrent cell: x W_ih + b_ih + h W_hh + b_hh, gates side by
// side in the last dim.
class GateWeights {
 public:
  Param<Tensor<2>> weight_ih;               // [d_input, gates * d_hidden]
  Param<Tensor<2>> weight_hh;               // [d_hidden, gates * d_hidden]
  std::optional<Param<Tensor<1>>> bias_ih;  // [gates * d_hidden]
  std::optional<Param<Tensor<1>>> bias_hh;  // [gates * d_hidden]

  int64_t d_input() const { return weight_ih.shape()[0]; }
  int64_t d_hidden() const { return weight_hh.shape()[0]; }
  // [batch, seq, d_input] -> [batch, seq, gates * d_hidden]: every step's input part at once.
  Tensor<3> input_part(const Tensor<3>& x) const;
  // [batch, d_hidden] -> [batch, gates * d_hidden]
  Tensor<2> hidden_part(const Tensor<2>& h) const;
  EMBER_MODULE(GateWeights, weight_ih, weight_hh, bias_ih, bias_hh)
};

// Burn's recurrent initializer (Xavier normal, gain 1) with each gate's fans (d_input or
// d_hidden in, d_hidden out), as if each gate had its own Linear.
GateWeights init_gates(int64_t d_input, int64_t d_hidden, int64_t gates, bool bias,
                       const Initializer& initializer, const Device& device);

struct LstmState {
  Tensor<2> cell;    // [batch, d_hidden]
  Tensor<2> hidden;  // [batch, d_hidden]
};

class Lstm {
 public:
  GateWeights gates;  // input, forget, cell (g), output
  bool batch_first = true;

  int64_t d_hidden() const { return gates.d_hidden(); }
  // x [batch, seq, d_input] ([seq, batch, d_input] unless batch_first) -> the hidden state of
  // every step [batch, seq, d_hidden] (time-major likewise) and the last state. Without a state
  // the first step starts from zeros.
  std::pair<Tensor<3>, LstmState> forward(const Tensor<3>& x,
                                          const std::optional<LstmState>& state = {},
                                          bool reverse = false) const;
  // One step from the input's gate part ([batch, 4 d_hidden]).
  LstmState step(const Tensor<2>& input_part, const LstmState& state) const;
  void display_attributes(Attributes& a) const {
    a.add("d_input", gates.d_input()).add("d_hidden", d_hidden());
  }
  EMBER_MODULE(Lstm, gates, batch_first)
};

struct LstmConfig {
  int64_t d_input = 0, d_hidden = 0;
  bool bias = true;
  bool batch_first = true;
  Initializer initializer = Initializer::xavier_normal(1.0);
  LstmConfig(int64_t d_input, int64_t d_hidden, bool bias)
      : d_input(d_input), d_hidden(d_hidden), bias(bias) {}
  Lstm init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(LstmConfig, d_input, d_hidden, bias, batch_first, initializer)
};

// A forward and a reverse Lstm; outputs side by side [batch, seq, 2 d_hidden], states stacked
// [2, batch, d_hidden] (forward first).
struct BiLstmState {
  Tensor<3> cell, hidden;
};
class BiLstm {
 public:
  Lstm forward_lstm, reverse_lstm;
  std::pair<Tensor<3>, BiLstmState> forward(const Tensor<3>& x,
                                            const std::optional<BiLstmState>& state = {}) const;
  EMBER_MODULE(BiLstm, forward_lstm, reverse_lstm)
};
struct BiLstmConfig {
  int64_t d_input = 0, d_hidden = 0;
  bool bias = true;
  bool batch_first = true;
  Initializer initializer = Initializer::xavier_normal(1.0);
  BiLstmConfig(int64_t d_input, int64_t d_hidden, bool bias)
      : d_input(d_input), d_hidden(d_hidden), bias(bias) {}
  BiLstm init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(BiLstmConfig, d_input, d_hidden, bias, batch_first, initializer)
};

class Gru {
 public:
  GateWeights gates;        // reset, update, new
  bool reset_after = true;  // the reset gate scales h W_hn + b_hn (PyTorch's GRU) or h
  bool batch_first = true;

  int64_t d_hidden() const { return gates.d_hidden(); }
  // As Lstm::forward; the state is the hidden state [batch, d_hidden].
  std::pair<Tensor<3>, Tensor<2>> forward(const Tensor<3>& x,
                                          const std::optional<Tensor<2>>& state = {},
                                          bool reverse = false) const;
  Tensor<2> step(const Tensor<2>& input_part, const Tensor<2>& hidden) const;
  void display_attributes(Attributes& a) const {
    a.add("d_input", gates.d_input()).add("d_hidden", d_hidden()).add("reset_after", reset_after);
  }
  EMBER_MODULE(Gru, gates, reset_after, batch_first)
};

struct GruConfig {
  int64_t d_input = 0, d_hidden = 0;
  bool bias = true;
  bool reset_after = true;
  bool batch_first = true;
  Initializer initializer = Initializer::xavier_normal(1.0);
  GruConfig(int64_t d_input, int64_t d_hidden, bool bias)
      : d_input(d_input), d_hidden(d_hidden), bias(bias) {}
  Gru init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(GruConfig, d_input, d_hidden, bias, reset_after, batch_first, initializer)
};

class BiGru {
 public:
  Gru forward_gru, reverse_gru;
  // Outputs [batch, seq, 2 d_hidden]; state [2, batch, d_hidden] (forward first).
  std::pair<Tensor<3>, Tensor<3>> forward(const Tensor<3>& x,
                                          const std::optional<Tensor<3>>& state = {}) const;
  EMBER_MODULE(BiGru, forward_gru, reverse_gru)
};
struct BiGruConfig {
  int64_t d_input = 0, d_hidden = 0;
  bool bias = true;
  bool reset_after = true;
  bool batch_first = true;
  Initializer initializer = Initializer::xavier_normal(1.0);
  BiGruConfig(int64_t d_input, int64_t d_hidden, bool bias)
      : d_input(d_input), d_hidden(d_hidden), bias(bias) {}
  BiGru init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(BiGruConfig, d_input, d_hidden, bias, reset_after, batch_first, initializer)
};

// The Elman network: h' = act(x W_ih + b_ih + h W_hh + b_hh), act tanh or relu.
class Rnn {
 public:
  GateWeights gates;
  std::string nonlinearity = "tanh";
  bool batch_first = true;

  std::pair<Tensor<3>, Tensor<2>> forward(const Tensor<3>& x,
                                          const std::optional<Tensor<2>>& state = {},
                                          bool reverse = false) const;
  Tensor<2> step(const Tensor<2>& input_part, const Tensor<2>& hidden) const;
  EMBER_MODULE(Rnn, gates, nonlinearity, batch_first)
};
struct RnnConfig {
  int64_t d_input = 0, d_hidden = 0;
  bool bias = true;
  std::string nonlinearity = "tanh";
  bool batch_first = true;
  Initializer initializer = Initializer::xavier_normal(1.0);
  RnnConfig(int64_t d_input, int64_t d_hidden, bool bias)
      : d_input(d_input), d_hidden(d_hidden), bias(bias) {}
  Rnn init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(RnnConfig, d_input, d_hidden, bias, nonlinearity, batch_first, initializer)
};

}  // namespace ember::nn
