#pragma once
// The LSTM recurrence (OpKind::Lstm) written as other primitives, a step at a time: what every
// device runs where no fused kernel does (kernels/rnn rewrites the node into it before
// planning), and its vector-Jacobian products. The gates are i, f, g, o side by side.
#include <algorithm>
#include <vector>

#include "ir/builder.h"

namespace ember::ir::lstm_compose {

inline ValueId scalar(Builder& b, ValueId like, double value) {
  return b.full(Shape{1, 1}, b.type(like).dtype, Scalar::from_double(value));
}
inline ValueId add(Builder& b, ValueId x, ValueId y) { return b.binary(BinaryFn::Add, x, y); }
inline ValueId sub(Builder& b, ValueId x, ValueId y) { return b.binary(BinaryFn::Sub, x, y); }
inline ValueId mul(Builder& b, ValueId x, ValueId y) { return b.binary(BinaryFn::Mul, x, y); }

// 1 / (1 + exp(-x)) as 0.5 + 0.5 tanh(x / 2): finite for every x.
inline ValueId sigmoid(Builder& b, ValueId x) {
  ValueId half = scalar(b, x, 0.5);
  return add(b, half, mul(b, half, b.unary(UnaryFn::Tanh, mul(b, half, x))));
}

// Columns [part * h, (part + 1) * h) of step t of a [B, T, C] sequence, as [B, h].
inline ValueId step_part(Builder& b, ValueId seq, int64_t t, int64_t part, int64_t h) {
  const int64_t batch = b.type(seq).shape[0];
  ValueId s = b.slice(seq, {0, t, part * h}, {batch, 1, h}, {1, 1, 1});
  return b.reshape(s, Shape{batch, h});
}

// [B, C] rows as step `t` of a [B, 1, C] slab.
inline ValueId as_step(Builder& b, ValueId x) {
  const Shape s = b.type(x).shape;
  return b.reshape(x, Shape{s[0], 1, s[1]});
}

// parts joined along `axis` by concatenations of at most kMostParts parts each (nested where
// there are more): one kernel reads every part of a concatenation, and Vulkan drivers bind 32
// buffers at most (lavapipe crashed on 40 steps' states joined at once).
constexpr size_t kMostParts = 16;
inline ValueId concat_tree(Builder& b, std::vector<ValueId> parts, int axis) {
  while (parts.size() > kMostParts) {
    std::vector<ValueId> joined;
    for (size_t i = 0; i < parts.size(); i += kMostParts) {
      const size_t end = std::min(parts.size(), i + kMostParts);
      std::vector<ValueId> group(parts.begin() + static_cast<long>(i),
                                 parts.begin() + static_cast<long>(end));
      joined.push_back(group.size() == 1 ? group[0] : b.concat(group, axis));
    }
    parts = std::move(joined);
  }
  return parts.size() == 1 ? parts[0] : b.concat(parts, axis);
}

// The order steps run in: step s is time t = order(s).
inline int64_t time_of(int64_t s, int64_t steps, bool reverse) {
  return reverse ? steps - 1 - s : s;
}

// Mode kLstmForward: the packed states [B, T, 6H] (i, f, g, o, c, h per step).
inline ValueId forward(Builder& b, ValueId xp, ValueId w, ValueId h0, ValueId c0, bool reverse) {
  const int64_t steps = b.type(xp).shape[1], h = b.type(w).shape[0];
  std::vector<ValueId> out(static_cast<size_t>(steps));
  ValueId hidden = h0, cell = c0;
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = time_of(s, steps, reverse);
    ValueId a = b.reshape(b.slice(xp, {0, t, 0}, {b.type(xp).shape[0], 1, 4 * h}, {1, 1, 1}),
                          Shape{b.type(xp).shape[0], 4 * h});
    a = add(b, a, b.matmul(hidden, w));
    auto part = [&](int64_t k) { return b.slice(a, {0, k * h}, {b.type(a).shape[0], h}, {1, 1}); };
    ValueId i = sigmoid(b, part(0)), f = sigmoid(b, part(1));
    ValueId g = b.unary(UnaryFn::Tanh, part(2)), o = sigmoid(b, part(3));
    cell = add(b, mul(b, f, cell), mul(b, i, g));
    hidden = mul(b, o, b.unary(UnaryFn::Tanh, cell));
    out[static_cast<size_t>(t)] = as_step(b, b.concat({i, f, g, o, cell, hidden}, 1));
  }
  return concat_tree(b, out, 1);
}

// Mode kLstmGrad: the gates' gradients [B, T + 1, 4H] from the packed states p and their
// gradient dp (ir/ops.h, LstmAttrs).
inline ValueId gradient_mode(Builder& b, ValueId p, ValueId w, ValueId c0, ValueId dp,
                             bool reverse) {
  const int64_t batch = b.type(p).shape[0], steps = b.type(p).shape[1], h = b.type(w).shape[0];
  std::vector<ValueId> rows(static_cast<size_t>(steps) + 1);
  ValueId dh_next = -1, dc_next = -1;
  ValueId one = scalar(b, p, 1.0);
  const ValueId wt = b.permute(w, {1, 0});
  for (int64_t s = steps - 1; s >= 0; --s) {
    const int64_t t = time_of(s, steps, reverse);
    auto state = [&](int64_t k) { return step_part(b, p, t, k, h); };
    auto grad = [&](int64_t k) { return step_part(b, dp, t, k, h); };
    ValueId i = state(0), f = state(1), g = state(2), o = state(3), c = state(4);
    ValueId c_prev = s > 0 ? step_part(b, p, time_of(s - 1, steps, reverse), 4, h) : c0;
    ValueId dh = dh_next >= 0 ? add(b, grad(5), dh_next) : grad(5);
    ValueId tc = b.unary(UnaryFn::Tanh, c);
    ValueId dc = mul(b, mul(b, dh, o), sub(b, one, mul(b, tc, tc)));
    dc = add(b, grad(4), dc);
    if (dc_next >= 0) dc = add(b, dc, dc_next);
    auto logistic_grad = [&](ValueId y) { return mul(b, y, sub(b, one, y)); };
    ValueId di = mul(b, add(b, mul(b, dc, g), grad(0)), logistic_grad(i));
    ValueId df = mul(b, add(b, mul(b, dc, c_prev), grad(1)), logistic_grad(f));
    ValueId dg = mul(b, add(b, mul(b, dc, i), grad(2)), sub(b, one, mul(b, g, g)));
    ValueId dout = mul(b, add(b, mul(b, dh, tc), grad(3)), logistic_grad(o));
    ValueId gates = b.concat({di, df, dg, dout}, 1);
    rows[static_cast<size_t>(t)] = as_step(b, gates);
    dc_next = mul(b, dc, f);
    dh_next = b.matmul(gates, wt);
  }
  ValueId zeros = b.full(Shape{batch, 2 * h}, b.type(p).dtype, Scalar::from_double(0));
  rows.back() = as_step(b, b.concat({dh_next, dc_next, zeros}, 1));
  return concat_tree(b, rows, 1);
}

// The hidden states each step started from, [B, T, H] in time order: h0 for the first step run.
inline ValueId previous_hidden(Builder& b, ValueId p, ValueId h0, bool reverse) {
  const Shape s = b.type(p).shape;
  const int64_t batch = s[0], steps = s[1], h = s[2] / 6;
  ValueId first = as_step(b, h0);
  if (steps == 1) return first;
  if (!reverse) {
    ValueId earlier = b.slice(p, {0, 0, 5 * h}, {batch, steps - 1, h}, {1, 1, 1});
    return b.concat({first, earlier}, 1);
  }
  ValueId later = b.slice(p, {0, 1, 5 * h}, {batch, steps - 1, h}, {1, 1, 1});
  return b.concat({later, first}, 1);
}

// The gradient of input `input` (xp, w, h0, c0; the barrier words have none) of forward node
// `out` = lstm(xp, w, h0, c0) given g = d out; `shared` keeps the gradient node between one
// node's calls.
inline ValueId gradient(Builder& b, const ValueIds& in, ValueId out, ValueId g, const LstmAttrs& a,
                        int input, std::vector<ValueId>& shared) {
  if (input > 3) return -1;
  const Shape s = b.type(out).shape;
  const int64_t batch = s[0], steps = s[1], h = s[2] / 6;
  shared.resize(1, -1);
  if (shared[0] < 0) {
    LstmAttrs ga = a;
    ga.mode = kLstmGrad;
    shared[0] = b.lstm_grad(out, in[1], in[3], g, ga);
  }
  const ValueId r = shared[0];
  if (input == 0) return b.slice(r, {0, 0, 0}, {batch, steps, 4 * h}, {1, 1, 1});
  if (input == 2 || input == 3) {
    ValueId last = b.slice(r, {0, steps, input == 2 ? 0 : h}, {batch, 1, h}, {1, 1, 1});
    return b.reshape(last, Shape{batch, h});
  }
  // dw = sum over batch and steps of h_prev^T dgates.
  ValueId prev = b.reshape(previous_hidden(b, out, in[2], a.reverse), Shape{batch * steps, h});
  ValueId dgates = b.reshape(b.slice(r, {0, 0, 0}, {batch, steps, 4 * h}, {1, 1, 1}),
                             Shape{batch * steps, 4 * h});
  return b.matmul(b.permute(prev, {1, 0}), dgates);
}

}  // namespace ember::ir::lstm_compose
