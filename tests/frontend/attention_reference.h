#pragma once
// Scaled dot-product attention and its gradients by plain loops over row-major host vectors,
// written from the definitions (softmax(q k^T * scale + additive) v; a masked score takes no
// part, a query with every key masked gets zeros). Shared by the frontend tests of
// module::attention and the nn suite, which runs it on other devices.
#include <cmath>
#include <functional>
#include <vector>

namespace ember::testing {

struct AttentionCase {
  int64_t batch = 1, heads = 1, kv_heads = 1, seq_q = 1, seq_k = 1, head_dim = 4, head_dim_v = 4;
  double scale = 0.5;
  bool quiet = false;
  // masked(b, h, i, j): the score of query i and key j is masked out.
  std::function<bool(int64_t, int64_t, int64_t, int64_t)> masked = [](auto...) { return false; };
  // additive(b, h, i, j): added to the score.
  std::function<double(int64_t, int64_t, int64_t, int64_t)> additive = [](auto...) { return 0.0; };

  size_t q_index(int64_t b, int64_t h, int64_t i, int64_t c) const {
    return static_cast<size_t>(((b * heads + h) * seq_q + i) * head_dim + c);
  }
  size_t k_index(int64_t b, int64_t h, int64_t j, int64_t c) const {
    return static_cast<size_t>(((b * kv_heads + h) * seq_k + j) * head_dim + c);
  }
  size_t v_index(int64_t b, int64_t h, int64_t j, int64_t c) const {
    return static_cast<size_t>(((b * kv_heads + h) * seq_k + j) * head_dim_v + c);
  }
  size_t o_index(int64_t b, int64_t h, int64_t i, int64_t c) const {
    return static_cast<size_t>(((b * heads + h) * seq_q + i) * head_dim_v + c);
  }
};

struct AttentionResult {
  std::vector<double> out, weights;  // [b, h, sq, dv], [b, h, sq, sk]
  std::vector<double> dq, dk, dv;    // gradients of sum(out * dout)
};

// The weights of one query row: softmax over unmasked keys (with an extra zero logit if quiet).
inline std::vector<double> attention_row(const AttentionCase& c, const std::vector<double>& q,
                                         const std::vector<double>& k, int64_t b, int64_t h,
                                         int64_t i) {
  const int64_t kh = h / (c.heads / c.kv_heads);
  std::vector<double> s(c.seq_k, 0.0);
  double m = c.quiet ? 0.0 : -INFINITY;
  for (int64_t j = 0; j < c.seq_k; ++j) {
    if (c.masked(b, h, i, j)) continue;
    double dot = 0;
    for (int64_t x = 0; x < c.head_dim; ++x)
      dot += q[c.q_index(b, h, i, x)] * k[c.k_index(b, kh, j, x)];
    s[j] = dot * c.scale + c.additive(b, h, i, j);
    m = std::max(m, s[j]);
  }
  double sum = c.quiet ? std::exp(-m) : 0.0;
  std::vector<double> p(c.seq_k, 0.0);
  for (int64_t j = 0; j < c.seq_k; ++j) {
    if (c.masked(b, h, i, j)) continue;
    p[j] = std::exp(s[j] - m);
    sum += p[j];
  }
  for (auto& x : p) x = sum > 0 ? x / sum : 0.0;
  return p;
}

inline AttentionResult attention_reference(const AttentionCase& c, const std::vector<double>& q,
                                           const std::vector<double>& k,
                                           const std::vector<double>& v,
                                           const std::vector<double>& dout) {
  AttentionResult r;
  r.out.assign(c.batch * c.heads * c.seq_q * c.head_dim_v, 0.0);
  r.weights.assign(c.batch * c.heads * c.seq_q * c.seq_k, 0.0);
  r.dq.assign(q.size(), 0.0);
  r.dk.assign(k.size(), 0.0);
  r.dv.assign(v.size(), 0.0);
  const int64_t group = c.heads / c.kv_heads;
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t kh = h / group;
      for (int64_t i = 0; i < c.seq_q; ++i) {
        std::vector<double> p = attention_row(c, q, k, b, h, i);
        // dP = dO V^T; dS = P (dP - sum(P dP)).
        std::vector<double> dp(c.seq_k, 0.0);
        double pdp = 0;
        for (int64_t j = 0; j < c.seq_k; ++j) {
          r.weights[((b * c.heads + h) * c.seq_q + i) * c.seq_k + j] = p[j];
          for (int64_t x = 0; x < c.head_dim_v; ++x) {
            r.out[c.o_index(b, h, i, x)] += p[j] * v[c.v_index(b, kh, j, x)];
            r.dv[c.v_index(b, kh, j, x)] += p[j] * dout[c.o_index(b, h, i, x)];
            dp[j] += dout[c.o_index(b, h, i, x)] * v[c.v_index(b, kh, j, x)];
          }
          pdp += p[j] * dp[j];
        }
        for (int64_t j = 0; j < c.seq_k; ++j) {
          const double ds = p[j] * (dp[j] - pdp) * c.scale;
          for (int64_t x = 0; x < c.head_dim; ++x) {
            r.dq[c.q_index(b, h, i, x)] += ds * k[c.k_index(b, kh, j, x)];
            r.dk[c.k_index(b, kh, j, x)] += ds * q[c.q_index(b, h, i, x)];
          }
        }
      }
    }
  }
  return r;
}

}  // namespace ember::testing
