// Scaled dot-product attention as a composition of frontend ops: the CPU reference and the
// composite every device runs until a fused kernel replaces it. The scores are the only
// sequence x sequence intermediate; masks are combined into one boolean tensor that broadcasts
// over batch and heads, so no mask is expanded to the full score shape in memory.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontend/activation.h"
#include "frontend/detail/primitives.h"
#include "frontend/detail/stream.h"
#include "frontend/module.h"
#include "kernels/attention/family.h"

namespace ember::module {
namespace {

[[noreturn]] void fail(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v,
                       const std::string& msg) {
  throw Error(absl::StrCat("attention: ", msg, " (query ", q.raw().type().to_string(), ", key ",
                           k.raw().type().to_string(), ", value ", v.raw().type().to_string(),
                           ")"));
}

// Each dim of a mask is 1 (broadcast) or the size of the scores' dim.
template <class K>
void check_mask(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v,
                const Tensor<4, K>& mask, const char* what) {
  const Shape want{q.shape()[0], q.shape()[1], q.shape()[2], k.shape()[2]};
  for (int d = 0; d < 4; ++d) {
    if (mask.shape()[d] != 1 && mask.shape()[d] != want[d]) {
      fail(q, k, v,
           absl::StrCat(what, " ", mask.shape().to_string(), " does not broadcast to the scores ",
                        want.to_string()));
    }
  }
}

void check_inputs(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v,
                  const AttentionOptions& o) {
  const Shape &qs = q.shape(), &ks = k.shape(), &vs = v.shape();
  if (q.dtype() != k.dtype() || q.dtype() != v.dtype()) fail(q, k, v, "dtypes differ");
  if (ks[0] != qs[0] || vs[0] != qs[0]) fail(q, k, v, "batch sizes differ");
  if (ks[1] != vs[1]) fail(q, k, v, "key and value have different head counts");
  if (ks[1] < 1 || qs[1] % ks[1] != 0) {
    fail(q, k, v,
         absl::StrCat("key/value heads (", ks[1], ") must divide query heads (", qs[1], ")"));
  }
  if (ks[2] != vs[2]) fail(q, k, v, "key and value sequence lengths differ");
  if (ks[3] != qs[3]) fail(q, k, v, "query and key head dims differ");
  if (o.additive_mask) {
    if (o.additive_mask->dtype() != q.dtype()) fail(q, k, v, "additive_mask dtype differs");
    check_mask(q, k, v, *o.additive_mask, "additive_mask");
  }
  if (o.bool_mask) check_mask(q, k, v, *o.bool_mask, "bool_mask");
  if (o.key_padding_mask) {
    const Shape& ps = o.key_padding_mask->shape();
    if (ps[0] != qs[0] || ps[1] != ks[2]) {
      fail(q, k, v,
           absl::StrCat("key_padding_mask ", ps.to_string(), " must be [batch, seq_k] = [", qs[0],
                        ", ", ks[2], "]"));
    }
  }
  if (!(o.dropout >= 0 && o.dropout < 1)) {
    fail(q, k, v, absl::StrCat("dropout must be in [0, 1), got ", o.dropout));
  }
  if (o.scale && !std::isfinite(*o.scale)) fail(q, k, v, "scale must be finite");
}

// [b, kv_heads, s, d] -> [b, heads, s, d], each kv head repeated for its group of query heads.
Tensor<4> repeat_heads(const Tensor<4>& x, int64_t heads) {
  const Shape& s = x.shape();
  if (s[1] == heads) return x;
  const int64_t group = heads / s[1];
  return x.unsqueeze_dim<5>(2)
      .expand<5>(Shape{s[0], s[1], group, s[2], s[3]})
      .reshape<4>(Shape{s[0], heads, s[2], s[3]});
}

// The union of every boolean mask (true: masked out), broadcastable to the scores, or none.
std::optional<Tensor<4, Bool>> combined_mask(const Tensor<4>& q, const Tensor<4>& k,
                                             const AttentionOptions& o) {
  std::optional<Tensor<4, Bool>> mask = o.bool_mask;
  auto add = [&](const Tensor<4, Bool>& m) { mask = mask ? mask->bool_or(m) : m; };
  const int64_t seq_q = q.shape()[2], seq_k = k.shape()[2];
  if (o.causal) {
    add(Tensor<2, Bool>::tril_mask(Shape{seq_q, seq_k}, seq_k - seq_q, q.device()).unsqueeze<4>());
  }
  if (o.key_padding_mask) {
    add(o.key_padding_mask->reshape<4>(Shape{q.shape()[0], 1, 1, seq_k}));
  }
  return mask;
}

// Softmax over keys where masked scores are -inf; a row masked entirely gives zeros instead of
// the 0 / 0 of a plain softmax. The shift is detached: softmax does not depend on it.
Tensor<4> masked_softmax(const Tensor<4>& scores, const Tensor<4, Bool>& mask, bool quiet) {
  Tensor<4> s = scores.mask_fill(mask, -std::numeric_limits<double>::infinity());
  Tensor<4> m = s.detach().max_dim(3);
  m = m.mask_fill(m.is_inf(), 0.0);
  Tensor<4> e = (s - m).exp();
  Tensor<4> denom = e.sum_dim(3);
  if (quiet) denom = denom + m.neg().exp();
  return e / denom.mask_fill(denom.equal_elem(0.0), 1.0);
}

// The scores' scale: the option's, or 1 / sqrt(head_dim).
double attrs_scale(const Tensor<4>& q, const AttentionOptions& o) {
  return o.scale.value_or(1.0 / std::sqrt(static_cast<double>(q.shape()[3])));
}

Tensor<4> attention_weights(const Tensor<4>& q, const Tensor<4>& k, const AttentionOptions& o) {
  const double scale = attrs_scale(q, o);
  Tensor<4> scores = q.matmul(k.swap_dims(2, 3)) * scale;
  // Half-precision scores are normalised in f32: a softmax over thousands of keys in bf16 loses
  // most of its digits.
  const DType dtype = q.dtype();
  const bool half = dtype == DType::F16 || dtype == DType::BF16;
  if (half) scores = scores.cast(DType::F32);
  if (o.additive_mask)
    scores = scores + (half ? o.additive_mask->cast(DType::F32) : *o.additive_mask);
  Tensor<4> p;
  if (auto mask = combined_mask(q, k, o)) {
    p = masked_softmax(scores, *mask, o.quiet_softmax);
  } else {
    p = o.quiet_softmax ? activation::quiet_softmax(scores, 3) : activation::softmax(scores, 3);
  }
  if (o.training && o.dropout > 0) {
    p = p * p.random_like(Distribution::bernoulli(1.0 - o.dropout)) / (1.0 - o.dropout);
  }
  return half ? p.cast(dtype) : p;
}

}  // namespace

AttentionOutput attention_with_weights(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v,
                                       const AttentionOptions& options) {
  check_inputs(q, k, v, options);
  const int64_t heads = q.shape()[1];
  Tensor<4> weights = attention_weights(q, repeat_heads(k, heads), options);
  return {weights.matmul(repeat_heads(v, heads)), weights};
}

namespace {

// EMBER_ATTENTION_TRAINING=0: attention with gradients records the composite on every device
// (an A/B baseline for the fused forward in training steps).
bool training_primitive() {
  const char* env = std::getenv("EMBER_ATTENTION_TRAINING");
  return env == nullptr || std::string(env) != "0";
}

// A computed operand, or a materialized one whose rows the fused kernels can copy as they are
// (contiguous: every stride and the offset a multiple of the row).
bool readable_in_place(const Tensor<4>& x) {
  const auto& value = x.raw().value();
  if (!value->array) return true;
  const runtime::Array& a = *value->array;
  return a.is_contiguous() && a.offset % 8 == 0;
}

// Whether attention(q, k, v, o) records the primitive (ir::OpKind::Attention), which devices
// with a fused kernel run as one: everything but masks other than causal, dropout and the quiet
// softmax. With gradients only where the forward fuses: the primitive's backward recomputes the
// probabilities, where the composite's forward would have kept them.
bool records_primitive(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v,
                       const AttentionOptions& o) {
  if (o.additive_mask || o.bool_mask || o.key_padding_mask || o.quiet_softmax) return false;
  if (o.training && o.dropout > 0) return false;
  if ((q.is_require_grad() || k.is_require_grad() || v.is_require_grad()) &&
      (!training_primitive() || q.shape()[3] != v.shape()[3] || !(attrs_scale(q, o) > 0) ||
       !jit::attention_fuses(ember::detail::backend_for(q.device()), q.dtype(), q.shape()[3]))) {
    return false;
  }
  return readable_in_place(q) && readable_in_place(k) && readable_in_place(v);
}

}  // namespace

Tensor<4> attention(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v,
                    const AttentionOptions& options) {
  if (!records_primitive(q, k, v, options)) {
    return attention_with_weights(q, k, v, options).context;
  }
  check_inputs(q, k, v, options);
  ir::AttentionAttrs attrs;
  attrs.scale = attrs_scale(q, options);
  attrs.causal = options.causal;
  return Tensor<4>(prim::attention(q.raw(), k.raw(), v.raw(), attrs));
}

}  // namespace ember::module
