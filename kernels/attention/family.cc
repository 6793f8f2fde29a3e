#include "kernels/attention/family.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ir/attention_compose.h"
#include "ir/error.h"
#include "ir/rewrite.h"
#include "kernels/attention/pattern.h"
#include "kernels/matmul/operands.h"

namespace ember::jit {
namespace {

using ir::ValueId;

bool fused_attention_enabled() {
  const char* env = std::getenv("EMBER_FUSED_ATTENTION");
  return env == nullptr || std::string(env) != "0";
}

// mma.sync with bf16 exists from sm_80 on.
bool has_mma(const runtime::Backend& backend) {
  if (backend.kind() != runtime::DeviceKind::Cuda) return false;
  const std::string arch = backend.target();  // sm_90a, sm_100a, sm_120 ...
  size_t end = 3;
  while (end < arch.size() && arch[end] >= '0' && arch[end] <= '9') ++end;
  int sm = 0;
  return arch.rfind("sm_", 0) == 0 && absl::SimpleAtoi(arch.substr(3, end - 3), &sm) && sm >= 80;
}

// Whether the device has a fused kernel for attention of this dtype and head dim.
bool fuses(const runtime::Backend& backend, DType t, int64_t dim) {
  return fused_attention_enabled() && has_mma(backend) && (t == DType::F16 || t == DType::BF16) &&
         (dim == 64 || dim == 128);
}

// An attention node of any mode as other primitives.
ValueId composite(ir::Builder& b, const ir::ValueIds& in, const ir::AttentionAttrs& a) {
  namespace ac = ir::attention_compose;
  switch (a.mode) {
    case ir::kAttentionLse:
      return ac::log_sum_exp(b, in[0], in[1], a);
    case ir::kAttentionGradQ:
    case ir::kAttentionGradKV:
      return ac::gradient_mode(b, in, a);
    default:
      return ac::forward(b, in[0], in[1], in[2], a);
  }
}

// Whether the kernel reads a [B, H, S, D] operand at this offset and these strides: rows of D
// contiguous, offset and strides multiples of 8 elements (16-byte copies) that fit 32 bits.
bool readable_rows(const Shape& s, int64_t offset, const std::vector<int64_t>& strides) {
  bool ok = strides[3] == 1 || s[3] == 1;
  std::vector<int64_t> words = {offset};
  for (int d = 0; d < 3; ++d) words.push_back(s[d] == 1 ? 0 : strides[d]);
  for (int64_t w : words) ok = ok && w % 8 == 0 && w >= 0 && w <= UINT32_MAX;
  return ok;
}

// Element offset and strides of batch, head and row of operand v (stored, or a view the planner
// left in place: AttentionFamily::stores_operand), as parameters. The kernel copies rows 16
// bytes at a time: rows contiguous, strides and offset multiples of 8.
std::vector<int> operand_params(Emitter& e, const StridedOperand& a, const TensorType& t,
                                const std::string& key) {
  const Shape& s = t.shape;
  if (!readable_rows(s, a.offset, a.strides)) {
    throw ember::Error(
        absl::StrCat("attention: operand ", t.to_string(),
                     " has a layout the fused kernel cannot read (rows must be contiguous, "
                     "strides and offset multiples of 8 elements)"));
  }
  std::vector<int64_t> words = {a.offset};
  for (int d = 0; d < 3; ++d) words.push_back(s[d] == 1 ? 0 : a.strides[d]);
  std::vector<int> out;
  const char* names[] = {":off", ":sb", ":sh", ":ss"};
  for (int i = 0; i < 4; ++i) {
    out.push_back(e.param_u(key + names[i], static_cast<uint32_t>(words[i])));
  }
  return out;
}

// The element offset of contiguous row statistics [B, H, Sq, 1] (the log-sum-exp, delta).
int rows_param(Emitter& e, const Emitter::LayoutFn& layout, ValueId v, const std::string& key) {
  const runtime::Array& a = layout(v);
  if (!a.is_contiguous() || a.offset < 0 || a.offset > UINT32_MAX) {
    throw ember::Error(
        absl::StrCat("attention: row statistics ", a.type.to_string(), " are not contiguous"));
  }
  return e.param_u(key + ":off", static_cast<uint32_t>(a.offset));
}

// Statement arguments (see SOp::Attention): the tile, four words per tensor operand, the row
// statistics' offsets (gradient modes), the sizes and the scale(s).
KernelGeometry lower_attention(const ir::Graph& g, const Plan& plan, const KernelPlan& kp,
                               const Emitter::LayoutFn& layout, Emitter& e) {
  const ir::Node& n = g.node(kp.anchor);
  const auto& attrs = n.get<ir::AttentionAttrs>();
  const Shape qs = g.type(n.inputs[0]).shape, ks = g.type(n.inputs[1]).shape;
  const int dim = static_cast<int>(qs[3]);
  const int kind = g.type(n.inputs[0]).dtype == DType::BF16 ? 1 : 0;
  const bool grad = attrs.mode == ir::kAttentionGradQ || attrs.mode == ir::kAttentionGradKV;
  // FlashFwd<KIND, D>::kBlockM rows per forward tile; the backward's blocks are 64 rows.
  const int block = grad ? 64 : (dim <= 64 ? 128 : 64);
  const int64_t rows = attrs.mode == ir::kAttentionGradKV ? ks[2] : qs[2];
  const int64_t tiles = (rows + block - 1) / block * qs[0] * qs[1];
  // The output mode's kernel may also write the log-sum-exp (AttentionFamily::takes_sibling).
  const ValueId lse_sibling = kp.outputs.size() > 1 ? kp.outputs[1] : -1;
  Stmt st{SOp::Attention};
  st.code = kind | (dim == 128) << 1 | attrs.causal << 2 | attrs.mode << 3 |
            (lse_sibling >= 0) << kAttentionWithLseBit;
  // q, k, v and dO as the stored buffers they view; the row statistics as stored.
  std::vector<StridedOperand> views;
  for (ValueId in : n.inputs) {
    std::optional<StridedOperand> view = strided_operand(g, plan.stored, layout, in);
    if (!view) throw ember::Error("attention: an operand is neither stored nor a view (planner)");
    views.push_back(*view);
    st.buffers.push_back(e.binding(view->stored, false));
  }
  st.buffers.push_back(e.binding(kp.anchor, true));
  if (lse_sibling >= 0) st.buffers.push_back(e.binding(lse_sibling, true));
  int tile = e.begin_for(SOp::ForRows, e.param_u("tiles", static_cast<uint32_t>(tiles)));
  st.args.push_back(tile);
  const char* keys[] = {"q", "k", "v", "dout"};
  for (int i = 0; i < (grad ? 4 : 3); ++i) {
    for (int p : operand_params(e, views[i], g.type(n.inputs[i]), keys[i])) st.args.push_back(p);
  }
  if (attrs.mode == ir::kAttentionLse) {  // the output is row statistics: its offset only
    st.args.push_back(rows_param(e, layout, kp.anchor, "o"));
    for (int i = 0; i < 3; ++i) st.args.push_back(e.const_u(0));
  } else {
    const runtime::Array& o = layout(kp.anchor);
    for (int p : operand_params(e, {kp.anchor, o.offset, o.strides}, o.type, "o")) {
      st.args.push_back(p);
    }
  }
  if (grad) {
    st.args.push_back(rows_param(e, layout, n.inputs[4], "lse"));
    st.args.push_back(rows_param(e, layout, n.inputs[5], "delta"));
  }
  const int64_t sizes[] = {qs[0], qs[1], ks[1], qs[2], ks[2]};
  const char* size_keys[] = {"batch", "heads", "kv_heads", "seq_q", "seq_k"};
  for (int i = 0; i < 5; ++i) {
    st.args.push_back(e.param_u(size_keys[i], static_cast<uint32_t>(sizes[i])));
  }
  const float scale = static_cast<float>(attrs.scale);
  const float scale_log2 = static_cast<float>(attrs.scale * 1.4426950408889634);
  if (grad) st.args.push_back(e.param_u("scale", std::bit_cast<uint32_t>(scale)));
  st.args.push_back(e.param_u("scale_log2", std::bit_cast<uint32_t>(scale_log2)));
  if (lse_sibling >= 0) st.args.push_back(rows_param(e, layout, lse_sibling, "lse_out"));
  e.desc().body.push_back(st);
  e.end();
  // 4 warps. Shared memory: forward, the query block and two stages of K and V; backward, two
  // kept 64-row operands and two stages of two streamed ones (FlashFwd, FlashBwd).
  e.desc().workgroup_size = 128;
  e.desc().dynamic_shared_bytes =
      static_cast<uint32_t>(grad ? 6 * 64 * dim * 2 : block * dim * 2 + 4 * 64 * dim * 2);
  KernelGeometry out;
  out.work_items = static_cast<uint64_t>(tiles);
  out.per_row = true;
  return out;
}

class AttentionFamily final : public AnchoredFamily {
 public:
  const char* name() const override { return "attention"; }
  bool anchors(const ir::Node& n) const override { return n.op == ir::OpKind::Attention; }
  Fusion fusion() const override { return Fusion::None; }
  bool rereads_operands() const override { return true; }
  // q, k, v and dO are read in place where they are views the kernel can read (rows of D
  // contiguous, 16-byte aligned: the heads of a projection); anything else, and the row
  // statistics, are stored first.
  bool stores_operand(const ir::Graph& g, ValueId v, ValueId in,
                      const std::vector<char>& stored) const override {
    const ir::Node& n = g.node(v);
    for (size_t i = 4; i < n.inputs.size(); ++i) {
      if (n.inputs[i] == in) return true;  // the log-sum-exp and delta: contiguous rows
    }
    // A flush input's layout is known only when the kernel runs: views of one are copied.
    std::optional<StridedOperand> view = strided_view(g, stored, in);
    return !view || g.node(view->stored).op == ir::OpKind::Input ||
           !readable_rows(g.type(in).shape, view->offset, view->strides);
  }
  // Training records the output and the log-sum-exp as two nodes over the same operands: one
  // forward kernel writes both.
  bool takes_sibling(const ir::Graph& g, const KernelPlan& kp, ValueId v) const override {
    const ir::Node& out = g.node(kp.anchor);
    const ir::Node& lse = g.node(v);
    if (kp.outputs.size() != 1 || lse.op != ir::OpKind::Attention) return false;
    const auto& a = out.get<ir::AttentionAttrs>();
    const auto& b = lse.get<ir::AttentionAttrs>();
    return a.mode == ir::kAttentionOutput && b.mode == ir::kAttentionLse &&
           out.inputs == lse.inputs && a.scale == b.scale && a.causal == b.causal;
  }

  // Before planning: attention nodes the device cannot fuse become their composite; where it
  // can, hand-written attention (pattern.h) becomes the node.
  bool rewrites(const ir::Graph& g, const runtime::Backend& backend) const override {
    std::vector<int> uses;  // without the outputs, which rewrite() adds: a superset of matches
    for (ValueId v = 0; v < g.size(); ++v) {
      const ir::Node& n = g.node(v);
      if (n.op == ir::OpKind::Attention && !fused_attention(g, n, backend)) return true;
      if (n.op == ir::OpKind::Matmul && fuses(backend, n.type.dtype, n.type.shape.dims.back())) {
        if (uses.empty()) uses = use_counts(g, {});
        if (match_attention(g, v, uses)) return true;
      }
    }
    return false;
  }
  ir::Graph rewrite(const ir::Graph& g, std::vector<ValueId>& outputs,
                    const runtime::Backend& backend,
                    std::vector<ValueId>* old_to_new) const override {
    const std::vector<int> uses = use_counts(g, outputs);
    std::vector<std::optional<AttentionMatch>> matches(g.size());
    std::vector<char> interior(g.size(), 0), claimed(g.size(), 0);
    for (ValueId v = 0; v < g.size(); ++v) {
      const ir::Node& n = g.node(v);
      if (n.op != ir::OpKind::Matmul || !fuses(backend, n.type.dtype, n.type.shape.dims.back())) {
        continue;
      }
      auto m = match_attention(g, v, uses);
      if (!m || g.type(m->q).shape[3] != n.type.shape[3] || !(m->scale > 0) ||
          g.type(m->q).shape.numel() == 0 || g.type(m->k).shape.numel() == 0) {
        continue;
      }
      // A chain that reads another's output or inner values (attention over attention) waits
      // for the next flush: its operands are not all in the new graph.
      bool overlaps = claimed[m->q] || claimed[m->k] || claimed[m->v] || claimed[v];
      for (ValueId i : m->interior) overlaps = overlaps || claimed[i];
      if (overlaps) continue;
      for (ValueId i : m->interior) interior[i] = claimed[i] = 1;
      claimed[v] = 1;
      matches[v] = std::move(m);
    }
    ir::Graph out;
    ir::Builder b(out);
    std::vector<ValueId> remap(g.size(), -1);
    std::vector<char> replaced(g.size(), 0);
    ir::ValueIds args;
    for (ValueId i = 0; i < g.size(); ++i) {
      const ir::Node& n = g.node(i);
      if (n.op == ir::OpKind::Input) {
        remap[i] = b.input(n.get<ir::InputAttrs>().slot, n.type);
        continue;
      }
      if (interior[i]) continue;  // read only by its chain, which becomes one node
      args.clear();
      for (ValueId in : n.inputs) args.push_back(remap[in]);
      const ValueId first = out.size();
      if (matches[i]) {
        const AttentionMatch& m = *matches[i];
        remap[i] = b.attention(remap[m.q], remap[m.k], remap[m.v], {m.scale, false});
        replaced[i] = 1;
      } else if (n.op == ir::OpKind::Attention && !fused_attention(g, n, backend)) {
        remap[i] = composite(b, args, n.get<ir::AttentionAttrs>());
        replaced[i] = 1;
      } else {
        remap[i] = b.replay(n, args);
        continue;
      }
      for (ValueId v = first; v < out.size(); ++v) out.set_label(v, n.label);
    }
    for (ValueId& o : outputs) o = remap[o];
    if (old_to_new != nullptr) {  // a chain's interior is dropped (-1), its matmul replaced
      old_to_new->assign(remap.begin(), remap.end());
      for (ValueId i = 0; i < g.size(); ++i) {
        if (replaced[i]) (*old_to_new)[i] = ir::kReplacedNode;
      }
    }
    return out;
  }
  uint64_t rewrite_settings() const override { return fused_attention_enabled() ? 1 : 0; }

  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel,
                       const Emitter::LayoutFn& layout, Emitter& e) const override {
    return lower_attention(g, plan, plan.kernels[kernel], layout, e);
  }
};

}  // namespace

bool attention_fuses(const runtime::Backend& backend, DType dtype, int64_t head_dim) {
  return fuses(backend, dtype, head_dim);
}

bool fused_attention(const ir::Graph& g, const ir::Node& n, const runtime::Backend& backend) {
  // The operands' dtype: the log-sum-exp mode outputs f32.
  const Shape& qs = g.type(n.inputs[0]).shape;
  const double scale = n.get<ir::AttentionAttrs>().scale;
  return fuses(backend, g.type(n.inputs[0]).dtype, qs[3]) &&
         g.type(n.inputs[2]).shape[3] == qs[3] && qs.numel() > 0 &&
         g.type(n.inputs[1]).shape.numel() > 0 && std::isfinite(scale) && scale > 0;
}

const Family& attention_family() {
  static const AttentionFamily family;
  return family;
}

}  // namespace ember::jit
