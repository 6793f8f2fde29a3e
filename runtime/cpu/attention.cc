// Scaled dot-product attention, the reference: per (batch, head, query) row, the scores against
// every visible key in the compute type (f32 for halves, f64 for f64), an exact softmax, then
// the weighted sum of the values; rows split over the worker threads.
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

template <class T>
void attention_rows(const Array& q, const Array& k, const Array& v, const ir::AttentionAttrs& a,
                    Array& out) {
  using C = Compute<T>;
  const Shape &qs = q.type.shape, &ks = k.type.shape;
  const int64_t B = qs[0], H = qs[1], Sq = qs[2], D = qs[3], Hk = ks[1], Sk = ks[2];
  const int64_t Dv = v.type.shape[3], shift = Sk - Sq;
  const T *qp = base_ptr<T>(q), *kp = base_ptr<T>(k), *vp = base_ptr<T>(v);
  T* op = base_ptr<T>(out);
  parallel_for(B * H, [&](int64_t bh) {
    const int64_t b = bh / H, h = bh % H, kh = h / (H / Hk);
    std::vector<C> p(Sk), acc(Dv);
    for (int64_t i = 0; i < Sq; ++i) {
      const T* qr = qp + b * q.strides[0] + h * q.strides[1] + i * q.strides[2];
      const int64_t visible = a.causal ? std::max<int64_t>(0, std::min(Sk, i + shift + 1)) : Sk;
      C mx = -std::numeric_limits<C>::infinity();
      for (int64_t j = 0; j < visible; ++j) {
        const T* kr = kp + b * k.strides[0] + kh * k.strides[1] + j * k.strides[2];
        C s = 0;
        for (int64_t d = 0; d < D; ++d) {
          s += static_cast<C>(qr[d * q.strides[3]]) * static_cast<C>(kr[d * k.strides[3]]);
        }
        p[j] = s * static_cast<C>(a.scale);
        mx = std::max(mx, p[j]);
      }
      C sum = 0;
      for (int64_t j = 0; j < visible; ++j) sum += p[j] = std::exp(p[j] - mx);
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t j = 0; j < visible; ++j) {
        const T* vr = vp + b * v.strides[0] + kh * v.strides[1] + j * v.strides[2];
        const C w = p[j] / sum;
        for (int64_t d = 0; d < Dv; ++d) acc[d] += w * static_cast<C>(vr[d * v.strides[3]]);
      }
      T* orow = op + b * out.strides[0] + h * out.strides[1] + i * out.strides[2];
      for (int64_t d = 0; d < Dv; ++d) orow[d * out.strides[3]] = convert<T>(acc[d]);
    }
  });
}

}  // namespace

Array run_attention(const Array& q, const Array& k, const Array& v, const ir::AttentionAttrs& a,
                    const TensorType& out_type) {
  Array out = allocate(out_type);
  dispatch_dtype(out_type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloating<T>) attention_rows<T>(q, k, v, a, out);
  });
  return out;
}

}  // namespace ember::runtime::cpu
