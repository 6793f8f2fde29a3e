// The recurrent ops RNN, GRU and LSTM, unrolled over the sequence (its length is known when the
// node runs): one matmul of the whole input per direction, then a small step per time step.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

enum class Cell { Rnn, Gru, Lstm };

int64_t gate_count(Cell cell) { return cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4; }

RawTensor activate(const std::string& name, const RawTensor& x) {
  if (name == "Sigmoid") return ops::sigmoid(x);
  if (name == "Tanh") return un(UnaryFn::Tanh, x);
  return ops::relu(x);  // "Relu": the check admits nothing else
}

RawTensor add(const RawTensor& a, const RawTensor& b) { return bin(BinaryFn::Add, a, b); }
RawTensor mul(const RawTensor& a, const RawTensor& b) { return bin(BinaryFn::Mul, a, b); }

// What one direction of the node needs.
struct Direction {
  RawTensor xw;  // [seq, batch, gates * H]: the input's projections plus the input bias
  RawTensor r;   // [H, gates * H]: R transposed
  RawTensor rb;  // [1, gates * H]: the recurrence bias
  RawTensor p;   // LSTM peepholes [3, H] (i, o, f), or undefined
  RawTensor h, c;
  bool reverse;
};

struct Config {
  Cell cell;
  int64_t hidden;
  std::vector<std::string> acts;  // f, g(, h)
  double clip;
  bool linear_before_reset;
};

RawTensor gate(const RawTensor& t, int64_t i, int64_t hidden) {
  return ops::narrow(t, -1, i * hidden, hidden);
}

RawTensor clip(const Config& cfg, const RawTensor& x) {
  if (cfg.clip <= 0) return x;
  return ops::clamp(x, Scalar(-cfg.clip), Scalar(cfg.clip));
}

// One time step: the new hidden (and cell) state from the step's input projections.
void step(const Config& cfg, Direction& d, const RawTensor& xw) {
  int64_t H = cfg.hidden;
  RawTensor hr = add(ops::matmul(d.h, d.r), d.rb);
  const std::string &f = cfg.acts[0], &g = cfg.acts[1];
  if (cfg.cell == Cell::Rnn) {
    d.h = activate(f, clip(cfg, add(xw, hr)));
  } else if (cfg.cell == Cell::Gru) {
    RawTensor z = activate(f, clip(cfg, add(gate(xw, 0, H), gate(hr, 0, H))));
    RawTensor r = activate(f, clip(cfg, add(gate(xw, 1, H), gate(hr, 1, H))));
    RawTensor hh;
    if (cfg.linear_before_reset) {
      hh = add(gate(xw, 2, H), mul(r, gate(hr, 2, H)));
    } else {
      RawTensor rh = ops::matmul(mul(r, d.h), gate(d.r, 2, H));
      hh = add(add(gate(xw, 2, H), rh), gate(d.rb, 2, H));
    }
    hh = activate(g, clip(cfg, hh));
    RawTensor one = scalar_like(z, 1);
    d.h = add(mul(bin(BinaryFn::Sub, one, z), hh), mul(z, d.h));
  } else {
    RawTensor pre = add(xw, hr);
    RawTensor pi = gate(pre, 0, H), po = gate(pre, 1, H), pf = gate(pre, 2, H);
    if (d.p.defined()) {
      pi = add(pi, mul(ops::narrow(d.p, 0, 0, 1), d.c));
      pf = add(pf, mul(ops::narrow(d.p, 0, 2, 1), d.c));
    }
    RawTensor i = activate(f, clip(cfg, pi)), fg = activate(f, clip(cfg, pf));
    RawTensor cc = activate(g, clip(cfg, gate(pre, 3, H)));
    d.c = add(mul(fg, d.c), mul(i, cc));
    if (d.p.defined()) po = add(po, mul(ops::narrow(d.p, 0, 1, 1), d.c));
    RawTensor o = activate(f, clip(cfg, po));
    d.h = mul(o, activate(cfg.acts[2], d.c));
  }
}

// Direction k's slice [..] of a [directions, ..] input.
RawTensor of_direction(NodeContext& c, int input, int k) {
  return ops::squeeze(ops::narrow(c.tensor(input), 0, k, 1), 0);
}

// Direction k's weights, biases and initial state, for input x [seq, batch, input].
Direction direction(NodeContext& c, const Config& cfg, const RawTensor& x, int k, bool reverse) {
  int64_t H = cfg.hidden, G = gate_count(cfg.cell) * H, batch = x.shape()[1];
  Direction d;
  d.reverse = reverse;
  d.r = ops::transpose(of_direction(c, 2, k));
  d.xw = ops::matmul(x, align(ops::transpose(of_direction(c, 1, k)), 3));
  if (c.has_input(3)) {
    RawTensor b = of_direction(c, 3, k);  // [2G]: the input's bias, then the recurrence's
    d.xw = add(d.xw, ops::narrow(b, 0, 0, G));
    d.rb = ops::reshape(ops::narrow(b, 0, G, G), {1, G});
  } else {
    d.rb = ops::zeros(Shape{1, G}, x.dtype(), x.device());
  }
  RawTensor zeros = ops::zeros(Shape{batch, H}, x.dtype(), x.device());
  d.h = c.has_input(5) ? of_direction(c, 5, k) : zeros;
  if (cfg.cell == Cell::Lstm) {
    d.c = c.has_input(6) ? of_direction(c, 6, k) : zeros;
    // [3, H]: each row, narrowed to [1, H], broadcasts over the batch.
    if (c.has_input(7)) d.p = ops::reshape(ops::narrow(c.tensor(7), 0, k, 1), {3, H});
  }
  return d;
}

// Runs one direction over the sequence: its outputs [seq, batch, H]. With sequence_lens
// ([batch, 1]), steps past a batch entry's length keep its state and output zeros (a reverse
// pass then starts at the entry's last step).
RawTensor run_direction(const Config& cfg, Direction& d, const RawTensor& lens) {
  int64_t seq = d.xw.shape()[0];
  std::vector<RawTensor> steps(seq);
  for (int64_t t = 0; t < seq; ++t) {
    int64_t at = d.reverse ? seq - 1 - t : t;
    RawTensor h0 = d.h, c0 = d.c;
    step(cfg, d, ops::squeeze(ops::narrow(d.xw, 0, at, 1), 0));
    RawTensor out = d.h;
    if (lens.defined()) {
      RawTensor live = bin(BinaryFn::Gt, lens, static_cast<double>(at));
      out = where(live, d.h, scalar_like(d.h, 0));
      d.h = where(live, d.h, h0);
      if (cfg.cell == Cell::Lstm) d.c = where(live, d.c, c0);
    }
    steps[at] = ops::unsqueeze_dim(out, 0);
  }
  return ops::cat(steps, 0);
}

// Direction k's activations: the attribute's names for it, or the cell's defaults.
std::vector<std::string> activations(NodeContext& c, Cell cell, int k) {
  std::vector<std::string> acts = cell == Cell::Rnn ? std::vector<std::string>{"Tanh"}
                                  : cell == Cell::Gru
                                      ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                      : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  if (const auto* a = c.attr("activations")) {
    size_t n = acts.size();
    acts.assign(a->strings().begin() + k * n, a->strings().begin() + (k + 1) * n);
  }
  if (cell == Cell::Rnn) acts.push_back(acts[0]);  // f is also g
  return acts;
}

Outputs recurrent(NodeContext& c, Cell cell) {
  bool batch_first = c.attr_int("layout", 0) == 1;
  RawTensor x = c.tensor(0);
  if (batch_first) x = ops::swap_dims(x, 0, 1);  // [seq, batch, input]
  Config cfg{cell,
             c.attr_int("hidden_size", 0),
             {},
             c.attr_float("clip", 0.0f),
             c.attr_int("linear_before_reset", 0) != 0};
  if (cfg.hidden == 0) cfg.hidden = c.input(2).dims()[1] / gate_count(cell);
  std::string dir = c.attr_string("direction", "forward");
  RawTensor lens;
  if (c.has_input(4)) lens = ops::reshape(ops::cast(c.tensor(4), DType::I64), {x.shape()[1], 1});
  std::vector<RawTensor> ys, hs, cs;
  for (int k = 0; k < (dir == "bidirectional" ? 2 : 1); ++k) {
    cfg.acts = activations(c, cell, k);
    Direction d = direction(c, cfg, x, k, dir == "reverse" || k == 1);
    ys.push_back(ops::unsqueeze_dim(run_direction(cfg, d, lens), 1));  // [seq, 1, batch, H]
    hs.push_back(ops::unsqueeze_dim(d.h, 0));
    if (cell == Cell::Lstm) cs.push_back(ops::unsqueeze_dim(d.c, 0));
  }
  RawTensor y = ops::cat(ys, 1), yh = ops::cat(hs, 0);
  if (batch_first) {
    y = ops::permute(y, {2, 0, 1, 3});  // [batch, seq, dirs, H]
    yh = ops::swap_dims(yh, 0, 1);
  }
  Outputs out{Value::tensor(y), Value::tensor(yh)};
  if (cell == Cell::Lstm) {
    RawTensor yc = ops::cat(cs, 0);
    out.push_back(Value::tensor(batch_first ? ops::swap_dims(yc, 0, 1) : yc));
  }
  return out;
}

std::string check_recurrent(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "activations") {
      for (const auto& s : a.strings()) {
        if (s != "Sigmoid" && s != "Tanh" && s != "Relu")
          return "activation '" + s + "' not supported";
      }
    }
    if (a.name() == "activation_alpha" || a.name() == "activation_beta") {
      return "attribute '" + a.name() + "' not supported";
    }
    if (a.name() == "input_forget" && a.i() != 0) return "input_forget not supported";
  }
  return "";
}

}  // namespace

void register_rnn(Registry& r) {
  const std::vector<std::string> common = {
      "activation_alpha", "activation_beta", "activations", "clip",
      "direction",        "hidden_size",     "layout"};
  std::vector<std::string> gru = common, lstm = common;
  gru.push_back("linear_before_reset");
  lstm.push_back("input_forget");
  r.add("RNN", {[](NodeContext& c) { return recurrent(c, Cell::Rnn); }, common, check_recurrent});
  r.add("GRU", {[](NodeContext& c) { return recurrent(c, Cell::Gru); }, gru, check_recurrent});
  r.add("LSTM", {[](NodeContext& c) { return recurrent(c, Cell::Lstm); }, lstm, check_recurrent});
}

}  // namespace ember::onnx_import
