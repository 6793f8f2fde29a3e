// The LSTM recurrence, the reference, in both modes (ir/ops.h LstmAttrs): each batch row's steps
// in the compute type (f32 for halves), a row per worker thread; a trailing barrier operand is
// ignored.
#include <cmath>
#include <vector>

#include "runtime/cpu/convert.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/dispatch.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/parallel.h"

namespace ember::runtime::cpu {
namespace {

// Element (i, j[, k]) of a rank-2 or rank-3 array of element type T.
template <class T>
struct View {
  const Array& a;
  T* p;
  explicit View(const Array& x) : a(x), p(base_ptr<T>(x)) {}
  T& at(int64_t i, int64_t j) const { return p[i * a.strides[0] + j * a.strides[1]]; }
  T& at(int64_t i, int64_t j, int64_t k) const {
    return p[i * a.strides[0] + j * a.strides[1] + k * a.strides[2]];
  }
};

template <class C>
C logistic(C x) {
  return C(1) / (C(1) + std::exp(-x));
}

template <class T>
void lstm_forward(std::span<const Array> in, bool reverse, Array& out) {
  using C = Compute<T>;
  View<T> xp(in[0]), w(in[1]), h0(in[2]), c0(in[3]), p(out);
  const int64_t B = in[0].type.shape[0], S = in[0].type.shape[1], H = in[1].type.shape[0];
  parallel_for(B, [&](int64_t b) {
    std::vector<C> h(H), c(H), a(4 * H);
    for (int64_t j = 0; j < H; ++j) h[j] = C(h0.at(b, j)), c[j] = C(c0.at(b, j));
    for (int64_t s = 0; s < S; ++s) {
      const int64_t t = reverse ? S - 1 - s : s;
      for (int64_t q = 0; q < 4 * H; ++q) a[q] = C(xp.at(b, t, q));
      for (int64_t k = 0; k < H; ++k)
        for (int64_t q = 0; q < 4 * H; ++q) a[q] += h[k] * C(w.at(k, q));
      for (int64_t j = 0; j < H; ++j) {
        const C i = logistic(a[j]), f = logistic(a[H + j]), g = std::tanh(a[2 * H + j]),
                o = logistic(a[3 * H + j]);
        c[j] = f * c[j] + i * g;
        h[j] = o * std::tanh(c[j]);
        const C packed[6] = {i, f, g, o, c[j], h[j]};
        for (int k = 0; k < 6; ++k) p.at(b, t, k * H + j) = convert<T>(packed[k]);
      }
    }
  });
}

template <class T>
void lstm_gradient(std::span<const Array> in, bool reverse, Array& out) {
  using C = Compute<T>;
  View<T> p(in[0]), w(in[1]), c0(in[2]), dp(in[3]), r(out);
  const int64_t B = in[0].type.shape[0], S = in[0].type.shape[1], H = in[1].type.shape[0];
  parallel_for(B, [&](int64_t b) {
    std::vector<C> dh_next(H, C(0)), dc_next(H, C(0)), dg(4 * H);
    for (int64_t s = S - 1; s >= 0; --s) {
      const int64_t t = reverse ? S - 1 - s : s, before = reverse ? t + 1 : t - 1;
      for (int64_t j = 0; j < H; ++j) {
        const C i = C(p.at(b, t, j)), f = C(p.at(b, t, H + j)), g = C(p.at(b, t, 2 * H + j)),
                o = C(p.at(b, t, 3 * H + j)), c = C(p.at(b, t, 4 * H + j));
        const C c_prev = s > 0 ? C(p.at(b, before, 4 * H + j)) : C(c0.at(b, j));
        const C tc = std::tanh(c), dh = C(dp.at(b, t, 5 * H + j)) + dh_next[j];
        const C dc = C(dp.at(b, t, 4 * H + j)) + dc_next[j] + dh * o * (C(1) - tc * tc);
        dg[j] = (dc * g + C(dp.at(b, t, j))) * i * (C(1) - i);
        dg[H + j] = (dc * c_prev + C(dp.at(b, t, H + j))) * f * (C(1) - f);
        dg[2 * H + j] = (dc * i + C(dp.at(b, t, 2 * H + j))) * (C(1) - g * g);
        dg[3 * H + j] = (dh * tc + C(dp.at(b, t, 3 * H + j))) * o * (C(1) - o);
        dc_next[j] = dc * f;
      }
      for (int64_t q = 0; q < 4 * H; ++q) r.at(b, t, q) = convert<T>(dg[q]);
      for (int64_t k = 0; k < H; ++k) {
        C sum = 0;
        for (int64_t q = 0; q < 4 * H; ++q) sum += dg[q] * C(w.at(k, q));
        dh_next[k] = sum;
      }
    }
    for (int64_t j = 0; j < H; ++j) {
      r.at(b, S, j) = convert<T>(dh_next[j]);
      r.at(b, S, H + j) = convert<T>(dc_next[j]);
      r.at(b, S, 2 * H + j) = r.at(b, S, 3 * H + j) = convert<T>(C(0));
    }
  });
}

}  // namespace

Array run_lstm(std::span<const Array> in, const ir::LstmAttrs& a, const TensorType& out_type) {
  Array out = allocate(out_type);
  dispatch_dtype(in[0].type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloating<T>) {
      if (a.mode == ir::kLstmGrad) {
        lstm_gradient<T>(in, a.reverse, out);
      } else {
        lstm_forward<T>(in, a.reverse, out);
      }
    }
  });
  return out;
}

}  // namespace ember::runtime::cpu
