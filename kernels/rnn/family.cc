#include "kernels/rnn/family.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "ir/lstm_compose.h"
#include "ir/rewrite.h"

namespace ember::jit {
namespace {

using ir::ValueId;

bool fused_lstm_enabled() {
  const char* env = std::getenv("EMBER_FUSED_LSTM");
  return env == nullptr || std::string(env) != "0";
}

// lstm.cuh's constants.
constexpr int64_t kThreads = 256;
constexpr int64_t kPairsPerThread = 4;  // (row, unit) pairs a thread updates
constexpr int64_t kStages = 4;          // kLstmStages
constexpr int64_t kForwardPitch = 64 + 4, kGradientPitch = 128 + 4;  // KC + 4
constexpr int64_t kReduceFloats = 4096;                              // the groups' partial sums

bool is_gradient(const ir::Node& n) { return n.get<ir::LstmAttrs>().mode == ir::kLstmGrad; }

// The split of node n (its batch and hidden size from the operands).
LstmSplit split_of(const ir::Graph& g, const ir::Node& n, const runtime::Backend& backend) {
  const Shape& seq = g.type(n.inputs[0]).shape;
  return lstm_split(backend, n.type.dtype, seq[0], g.type(n.inputs[1]).shape[0], is_gradient(n));
}

bool fused(const ir::Graph& g, const ir::Node& n, const runtime::Backend& backend) {
  return split_of(g, n, backend).units > 0;
}

ValueId composite(ir::Builder& b, const ir::ValueIds& in, const ir::LstmAttrs& a) {
  if (a.mode == ir::kLstmGrad) {
    return ir::lstm_compose::gradient_mode(b, in[0], in[1], in[2], in[3], a.reverse);
  }
  return ir::lstm_compose::forward(b, in[0], in[1], in[2], in[3], a.reverse);
}

// Offset and three strides of operand v as parameters: rank 3 as (dim 0, dim 1, dim 2), rank 2
// as (dim 0, -, dim 1). The kernel indexes with them in 32 bits.
void operand_params(Emitter& e, const runtime::Array& a, const std::string& key,
                    std::vector<int>& args) {
  std::vector<int64_t> words{a.offset};
  const Shape& s = a.type.shape;
  for (int d = 0; d < s.rank(); ++d) {
    words.push_back(s[d] == 1 ? 0 : a.strides[d]);
    if (s.rank() == 2 && d == 0) words.push_back(0);
  }
  const char* names[] = {":off", ":s0", ":s1", ":s2"};
  for (int i = 0; i < 4; ++i) {
    if (words[i] < 0 || words[i] > UINT32_MAX) {
      throw ember::Error(absl::StrCat("lstm: operand ", a.type.to_string(),
                                      " has a layout the fused kernel cannot index in 32 bits"));
    }
    args.push_back(e.param_u(key + names[i], static_cast<uint32_t>(words[i])));
  }
}

// The split as the kernel's variant (chosen where the device is known, read when lowering).
Variant pack(const LstmSplit& s) {
  return static_cast<Variant>(s.units) | static_cast<Variant>(s.block_rows) << 5 |
         static_cast<Variant>(s.workgroups) << 14 | static_cast<Variant>(s.shared_bytes) << 30;
}
LstmSplit unpack(Variant v) {
  return {static_cast<int>(v & 31), static_cast<uint32_t>(v >> 14 & 0xffff),
          static_cast<uint32_t>(v >> 5 & 0x1ff), static_cast<uint32_t>(v >> 30)};
}

KernelGeometry lower_lstm(const ir::Graph& g, const KernelPlan& kp, const Emitter::LayoutFn& layout,
                          Emitter& e) {
  const ir::Node& n = g.node(kp.anchor);
  const auto& attrs = n.get<ir::LstmAttrs>();
  const Shape& seq = g.type(n.inputs[0]).shape;
  const int64_t hidden = g.type(n.inputs[1]).shape[0];
  const LstmSplit split = unpack(kp.variant);
  if (n.inputs.size() != 5 || split.units == 0) {
    throw ember::Error("lstm: the node reached lowering without its barrier words or split");
  }
  Stmt st{SOp::Lstm};
  st.code = (attrs.mode == ir::kLstmGrad) | attrs.reverse << 1 | split.units << 2;
  for (ValueId in : n.inputs) st.buffers.push_back(e.binding(in, false));
  st.buffers.push_back(e.binding(kp.anchor, true));
  int workgroup = e.begin_for(SOp::ForRows, e.param_u("workgroups", split.workgroups));
  st.args.push_back(workgroup);
  const char* keys[] = {"in0", "in1", "in2", "in3"};
  for (int i = 0; i < 4; ++i) operand_params(e, layout(n.inputs[i]), keys[i], st.args);
  operand_params(e, layout(kp.anchor), "out", st.args);
  const runtime::Array& sync = layout(n.inputs[4]);
  if (!sync.is_contiguous()) throw ember::Error("lstm: the barrier words are not contiguous");
  st.args.push_back(e.param_u("sync:off", static_cast<uint32_t>(sync.offset)));
  const int64_t sizes[] = {seq[0], seq[1], hidden, split.workgroups, split.block_rows};
  const char* size_keys[] = {"batch", "steps", "hidden", "workgroups_n", "block_rows"};
  for (int i = 0; i < 5; ++i) {
    st.args.push_back(e.param_u(size_keys[i], static_cast<uint32_t>(sizes[i])));
  }
  e.desc().body.push_back(st);
  e.end();
  e.desc().workgroup_size = kThreads;
  e.desc().dynamic_shared_bytes = split.shared_bytes;
  e.desc().whole_grid = true;
  KernelGeometry out;
  out.work_items = split.workgroups;
  out.per_row = true;
  return out;
}

class RnnFamily final : public AnchoredFamily {
 public:
  const char* name() const override { return "rnn"; }
  bool anchors(const ir::Node& n) const override { return n.op == ir::OpKind::Lstm; }
  Fusion fusion() const override { return Fusion::None; }
  bool rereads_operands() const override { return true; }
  bool stores_operands() const override { return true; }

  // Before planning: nodes the device cannot fuse become their composite; those it can get
  // their barrier words (zeros the kernel leaves zero).
  bool rewrites(const ir::Graph& g, const runtime::Backend& backend) const override {
    for (ValueId v = 0; v < g.size(); ++v) {
      const ir::Node& n = g.node(v);
      if (n.op == ir::OpKind::Lstm && (!fused(g, n, backend) || n.inputs.size() == 4)) return true;
    }
    return false;
  }
  ir::Graph rewrite(const ir::Graph& g, std::vector<ValueId>& outputs,
                    const runtime::Backend& backend,
                    std::vector<ValueId>* old_to_new) const override {
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
      args.clear();
      for (ValueId in : n.inputs) args.push_back(remap[in]);
      const ValueId first = out.size();
      if (n.op == ir::OpKind::Lstm && !fused(g, n, backend)) {
        args.resize(4);
        remap[i] = composite(b, args, n.get<ir::LstmAttrs>());
      } else if (n.op == ir::OpKind::Lstm && n.inputs.size() == 4) {
        // Each node its own words: launches on one stream never overlap, but a shared constant
        // could be folded with a user's.
        const auto& a = n.get<ir::LstmAttrs>();
        const ValueId sync = b.full(Shape{2}, DType::I32, ir::Scalar::from_int(0));
        remap[i] = a.mode == ir::kLstmGrad
                       ? b.lstm_grad(args[0], args[1], args[2], args[3], a, sync)
                       : b.lstm(args[0], args[1], args[2], args[3], a, sync);
      } else {
        remap[i] = b.replay(n, args);
        continue;
      }
      replaced[i] = 1;
      for (ValueId v = first; v < out.size(); ++v) out.set_label(v, n.label);
    }
    for (ValueId& o : outputs) o = remap[o];
    if (old_to_new != nullptr) {
      old_to_new->assign(remap.begin(), remap.end());
      for (ValueId i = 0; i < g.size(); ++i) {
        if (replaced[i]) (*old_to_new)[i] = ir::kReplacedNode;
      }
    }
    return out;
  }
  uint64_t rewrite_settings() const override { return fused_lstm_enabled() ? 1 : 0; }

  // The variant is the split for the node's sizes on this device (no tuning).
  VariantChoice choose(const VariantContext& c, const KernelPlan& kp) const override {
    return {pack(split_of(c.g, c.g.node(kp.anchor), c.backend)), ""};
  }
  std::string describe(Variant v) const override {
    const LstmSplit s = unpack(v);
    return absl::StrCat(s.workgroups, " workgroups of ", s.units, " units x ", s.block_rows,
                        " rows");
  }

  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel,
                       const Emitter::LayoutFn& layout, Emitter& e) const override {
    return lower_lstm(g, plan.kernels[kernel], layout, e);
  }
};

}  // namespace

LstmSplit lstm_split(const runtime::Backend& backend, DType dtype, int64_t batch, int64_t hidden,
                     bool gradient) {
  LstmSplit best;
  const int64_t compute_units = backend.compute_units();
  if (!fused_lstm_enabled() || backend.kind() != runtime::DeviceKind::Cuda || dtype != DType::F32 ||
      batch < 1 || hidden < 4 || hidden % 4 != 0 || compute_units == 0) {
    return best;
  }
  // The most workgroups that run at once; among those, the most units each (every workgroup
  // reads its rows of the step's whole operand, so fewer unit blocks read less).
  for (int units : {16, 8, 4}) {
    const int64_t unit_blocks = (hidden + units - 1) / units;
    const int64_t columns = gradient ? units : 4 * units;  // Q: of the weight slice per row
    for (int64_t row_blocks = 1; row_blocks <= batch; row_blocks *= 2) {
      const int64_t rows = (batch + row_blocks - 1) / row_blocks, block = (rows + 3) / 4 * 4;
      const int64_t workgroups = (batch + block - 1) / block * unit_blocks;
      if (workgroups > compute_units || block * units > kPairsPerThread * kThreads ||
          block * columns > kReduceFloats) {
        continue;
      }
      const int64_t pitch = gradient ? kGradientPitch : kForwardPitch;
      const int64_t floats = 4 * hidden * units + kStages * block * pitch + kReduceFloats;
      if (floats * 4 > backend.max_shared_bytes()) continue;
      if (static_cast<uint32_t>(workgroups) > best.workgroups) {
        best = {units, static_cast<uint32_t>(workgroups), static_cast<uint32_t>(block),
                static_cast<uint32_t>(floats * 4)};
      }
    }
  }
  return best;
}

const Family& rnn_family() {
  static const RnnFamily family;
  return family;
}

}  // namespace ember::jit
