// Scaled dot-product attention, the reference, in every mode (ir/ops.h AttentionAttrs): per
// (batch, head, query) row, the scores against every visible key in the compute type (f32 for
// halves, f64 for f64) and an exact softmax; then the output, the log-sum-exp, or the gradients
// from (dout, delta). Rows of one (batch, head) run on one worker thread.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/cpu/convert.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/dispatch.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/parallel.h"

namespace ember::runtime::cpu {
namespace {

// Element (b, h, i, d) of a rank-4 array of element type T.
template <class T>
struct View {
  const Array& a;
  T* p;
  explicit View(const Array& x) : a(x), p(base_ptr<T>(x)) {}
  T& at(int64_t b, int64_t h, int64_t i, int64_t d) const {
    return p[b * a.strides[0] + h * a.strides[1] + i * a.strides[2] + d * a.strides[3]];
  }
};

template <class T>
void attention_rows(std::span<const Array> in, const ir::AttentionAttrs& a, Array& out) {
  using C = Compute<T>;
  const Shape &qs = in[0].type.shape, &ks = in[1].type.shape;
  const int64_t B = qs[0], H = qs[1], Sq = qs[2], D = qs[3], Hk = ks[1], Sk = ks[2];
  const int64_t Dv = in[2].type.shape[3], shift = Sk - Sq;
  View<T> q(in[0]), k(in[1]), v(in[2]);
  parallel_for(B * H, [&](int64_t bh) {
    const int64_t b = bh / H, h = bh % H, kh = h / (H / Hk);
    std::vector<C> p(Sk), acc(std::max(D, Dv));
    // Mode kAttentionGradKV: this head's dk and dv, accumulated over the queries in C.
    std::vector<C> dk(a.mode == ir::kAttentionGradKV ? Sk * D : 0), dv(dk.size());
    for (int64_t i = 0; i < Sq; ++i) {
      const int64_t visible = a.causal ? std::max<int64_t>(0, std::min(Sk, i + shift + 1)) : Sk;
      C mx = -std::numeric_limits<C>::infinity();
      for (int64_t j = 0; j < visible; ++j) {
        C s = 0;
        for (int64_t d = 0; d < D; ++d) s += C(q.at(b, h, i, d)) * C(k.at(b, kh, j, d));
        p[j] = s * static_cast<C>(a.scale);
        mx = std::max(mx, p[j]);
      }
      C sum = 0;
      for (int64_t j = 0; j < visible; ++j) sum += p[j] = std::exp(p[j] - mx);
      for (int64_t j = 0; j < visible; ++j) p[j] /= sum;
      if (a.mode == ir::kAttentionLse) {
        View<C> lse(out);
        lse.at(b, h, i, 0) = visible > 0 ? mx + std::log(sum) : -std::numeric_limits<C>::infinity();
        continue;
      }
      if (a.mode == ir::kAttentionOutput) {
        View<T> o(out);
        std::fill(acc.begin(), acc.end(), C(0));
        for (int64_t j = 0; j < visible; ++j)
          for (int64_t d = 0; d < Dv; ++d) acc[d] += p[j] * C(v.at(b, kh, j, d));
        for (int64_t d = 0; d < Dv; ++d) o.at(b, h, i, d) = convert<T>(acc[d]);
        continue;
      }
      // Gradients: dS = P (dP - delta) with dP = dout v^T; dq = scale dS k, dk = scale dS^T q and
      // dv = P^T dout, per query head (dk at batch b, dv at batch B + b of the packed output).
      View<T> g(in[3]), o(out);
      View<C> delta(in[5]);
      const C dl = delta.at(b, h, i, 0), scale = static_cast<C>(a.scale);
      if (a.mode == ir::kAttentionGradQ) std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t j = 0; j < visible; ++j) {
        C dp = 0;
        for (int64_t d = 0; d < Dv; ++d) dp += C(g.at(b, h, i, d)) * C(v.at(b, kh, j, d));
        const C ds = p[j] * (dp - dl) * scale;
        if (a.mode == ir::kAttentionGradQ) {
          for (int64_t d = 0; d < D; ++d) acc[d] += ds * C(k.at(b, kh, j, d));
          continue;
        }
        for (int64_t d = 0; d < D; ++d) {
          dk[j * D + d] += ds * C(q.at(b, h, i, d));
          dv[j * D + d] += p[j] * C(g.at(b, h, i, d));
        }
      }
      if (a.mode == ir::kAttentionGradQ)
        for (int64_t d = 0; d < D; ++d) o.at(b, h, i, d) = convert<T>(acc[d]);
    }
    if (a.mode != ir::kAttentionGradKV) return;
    View<T> o(out);
    for (int64_t j = 0; j < Sk; ++j)
      for (int64_t d = 0; d < D; ++d) {
        o.at(b, h, j, d) = convert<T>(dk[j * D + d]);
        o.at(B + b, h, j, d) = convert<T>(dv[j * D + d]);
      }
  });
}

}  // namespace

Array run_attention(std::span<const Array> in, const ir::AttentionAttrs& a,
                    const TensorType& out_type) {
  Array out = allocate(out_type);
  dispatch_dtype(in[0].type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloating<T>) attention_rows<T>(in, a, out);
  });
  return out;
}

}  // namespace ember::runtime::cpu
