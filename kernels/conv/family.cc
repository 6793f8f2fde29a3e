#include "kernels/conv/family.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "kernels/conv/output.h"
#include "kernels/conv/tensor_core.h"
#include "kernels/conv/tuning.h"
#include "kernels/matmul/precision.h"
#include "kernels/matmul/simt_gemm.h"
#include "kernels/matmul/tiles.h"
#include "kernels/matmul/tuning.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::ValueId;

// Variants: the SIMT GEMM's blocks (RM | RN << 8), the direct loop, or tensor-core tile T
// (kConvMmaVariant | T).
constexpr Variant kDirect = 255;
constexpr Variant kMmaVariant = kConvMmaVariant;
// Fewer output channels per group than this run the direct variant.
constexpr int64_t kDirectBelow = 8;

// The SIMT block for a GEMM: RN covers the output channels of a group (up to 4, a 64-wide tile),
// RM as large as keeps at least two tiles per multiprocessor of a large GPU (264 tiles).
Variant conv_block(const ConvShape& s) {
  if (s.N >= 128) {
    const int r = matmul_block(s.M, s.N, s.groups);
    return static_cast<Variant>(r | r << 8);
  }
  int rn = 1;
  while (rn < 4 && 16 * rn < s.N) rn *= 2;
  int rm = 8;
  while (rm > 1 && s.groups * ((s.M + 16 * rm - 1) / (16 * rm)) < 264) rm /= 2;
  return static_cast<Variant>(rm | rn << 8);
}

void lower_conv(const ir::Graph& g, Emitter& e, const KernelPlan& kp, Variant block,
                KernelGeometry& out) {
  const ValueId y = kp.anchor, x = g.node(y).inputs[0], w = g.node(y).inputs[1];
  const auto& a = g.node(y).get<ir::ConvAttrs>();
  const Shape &xs = g.type(x).shape, &ws = g.type(w).shape, &ys = kp.shape;
  const int r = xs.rank(), sr = r - 2;
  const ConvShape shape = conv_gemm(g, y);
  const int64_t og = shape.N;
  SimtGemm gemm;
  gemm.batch = shape.groups;
  gemm.M = shape.M;
  gemm.N = shape.N;
  gemm.K = shape.K;
  gemm.block = std::max<int>(1, static_cast<int>(block & 0xff));
  gemm.block_n = std::max<int>(1, static_cast<int>(block >> 8 & 0xff));
  gemm.acc = compute_type(g.type(y).dtype);
  gemm.a_along_rows = true;  // consecutive output pixels read neighbouring input pixels
  gemm.b_along_rows = true;  // a weight row [c, q...] is contiguous
  auto u = [&](int64_t v) { return e.const_u(static_cast<uint64_t>(v)); };
  auto add = [&](int p, int q) { return e.bin(BinaryFn::Add, p, q); };
  auto mul = [&](int p, int q) { return e.bin(BinaryFn::Mul, p, q); };
  // Row and column splits: [N, out...] and [Cg, kernel...] (sizes as parameter words).
  // The weight's sizes are constants (divisions by them become multiplications; they are the
  // family's specialisation); the input's and output's are parameter words.
  std::vector<int> m_dims{e.size_param(xs, 0, "conv_x")}, k_dims{u(ws[1])};
  std::vector<int> in_dims;
  for (int d = 0; d < sr; ++d) {
    m_dims.push_back(e.size_param(ys, d + 2, "conv_y"));
    k_dims.push_back(u(ws[d + 2]));
    in_dims.push_back(e.size_param(xs, d + 2, "conv_x"));
  }
  const int p_cg = u(ws[1]);
  const int p_og = u(og);
  int group = -1;
  gemm.begin_batch = [&](int b) { group = b; };
  gemm.load_a = [&](int row, int col) {
    std::vector<int> m = unflatten(e, row, m_dims), k = unflatten(e, col, k_dims);
    Index idx{xs, std::vector<int>(r, -1), -1};
    idx.dims[0] = m[0];
    idx.dims[1] = add(mul(group, p_cg), k[0]);
    int inside = e.const_b(true);
    for (int d = 0; d < sr; ++d) {
      // o * stride + q * dilation - pad in unsigned arithmetic: a position left of the input
      // wraps past its size, so one comparison checks both sides.
      int pos = add(mul(m[d + 1], u(a.stride[d])), mul(k[d + 1], u(a.dilation[d])));
      pos = e.bin(BinaryFn::Sub, pos, u(a.pad_before[d]));
      inside = e.bin(BinaryFn::LogicalAnd, inside, e.bin(BinaryFn::Lt, pos, in_dims[d]));
      idx.dims[d + 2] = e.umin(pos, e.bin(BinaryFn::Sub, in_dims[d], u(1)));
    }
    int v = e.cast(e.value(x, idx), gemm.acc);
    return e.select(inside, v, e.cast(u(0), gemm.acc));
  };
  gemm.load_b = [&](int row, int col) {
    std::vector<int> k = unflatten(e, row, k_dims);
    Index idx{ws, std::vector<int>(r, -1), -1};
    idx.dims[0] = add(mul(group, p_og), col);
    for (int d = 0; d < sr + 1; ++d) idx.dims[d + 1] = k[d];
    return e.cast(e.value(w, idx), gemm.acc);
  };
  ConvOutput output(g, e, kp, gemm.M, gemm.N);
  gemm.store = [&](int row, int col, int value) { output.store(group, row, col, value); };
  emit_simt_gemm(e, gemm, out);
}

// The direct variant: one thread per output, the reduction over input channels and kernel
// offsets in a loop. For convolutions with few output channels per group (depthwise ones):
// the GEMM tile would leave most of its columns empty.
void lower_conv_direct(const ir::Graph& g, Emitter& e, const KernelPlan& kp, KernelGeometry& out) {
  const ValueId y = kp.anchor, x = g.node(y).inputs[0], w = g.node(y).inputs[1];
  const auto& a = g.node(y).get<ir::ConvAttrs>();
  const Shape &xs = g.type(x).shape, &ws = g.type(w).shape, &ys = kp.shape;
  const int r = xs.rank(), sr = r - 2;
  const CType acc_t = compute_type(g.type(y).dtype);
  auto u = [&](int64_t v) { return e.const_u(static_cast<uint64_t>(v)); };
  auto add = [&](int p, int q) { return e.bin(BinaryFn::Add, p, q); };
  auto mul = [&](int p, int q) { return e.bin(BinaryFn::Mul, p, q); };
  const int p_cg = u(ws[1]);
  const int p_og = u(ws[0] / a.groups);
  std::vector<int> k_dims{p_cg}, in_dims;
  int64_t taps = 1;
  for (int d = 0; d < sr; ++d) {
    k_dims.push_back(u(ws[d + 2]));
    in_dims.push_back(e.size_param(xs, d + 2, "conv_x"));
    taps *= ws[d + 2];
  }
  const int p_k = u(ws[1] * taps);
  int lin = e.begin_for(SOp::ForGrid, e.numel_param(ys, "out"));
  Index oidx{ys, std::vector<int>(r, -1), lin};
  for (int d = 0; d < r; ++d) oidx.dims[d] = e.dim(oidx, d);
  const int first_channel = mul(e.bin(BinaryFn::Div, oidx.dims[1], p_og), p_cg);
  int acc = e.new_var(acc_t, e.cast(u(0), acc_t));
  int k = e.begin_for(SOp::ForSeq, p_k);
  std::vector<int> kk = unflatten(e, k, k_dims);
  Index xidx{xs, std::vector<int>(r, -1), -1}, widx{ws, std::vector<int>(r, -1), -1};
  xidx.dims[0] = oidx.dims[0];
  xidx.dims[1] = add(first_channel, kk[0]);
  widx.dims[0] = oidx.dims[1];
  widx.dims[1] = kk[0];
  int inside = e.const_b(true);
  for (int d = 0; d < sr; ++d) {
    int pos = add(mul(oidx.dims[d + 2], u(a.stride[d])), mul(kk[d + 1], u(a.dilation[d])));
    pos = e.bin(BinaryFn::Sub, pos, u(a.pad_before[d]));
    inside = e.bin(BinaryFn::LogicalAnd, inside, e.bin(BinaryFn::Lt, pos, in_dims[d]));
    xidx.dims[d + 2] = e.umin(pos, e.bin(BinaryFn::Sub, in_dims[d], u(1)));
    widx.dims[d + 2] = kk[d + 1];
  }
  int xv = e.select(inside, e.cast(e.value(x, xidx), acc_t), e.cast(u(0), acc_t));
  e.assign(acc, e.fma(xv, e.cast(e.value(w, widx), acc_t), e.var(acc, acc_t)));
  e.end();
  e.provide(y, e.cast(e.var(acc, acc_t), compute_type(g.type(y).dtype)));
  for (ValueId o : kp.outputs) e.store(o, lin, e.value(o, oidx));
  e.end();
  out.work_items = static_cast<uint64_t>(ys.numel());
}

// EMBER_CONV_MMA: 0 keeps convolutions off the tensor-core tile (the SIMT baseline of an A/B
// measurement); 1 to kConvMmaTileCount forces that tile where it is admitted; -1 otherwise. Read
// at every choice, as EMBER_MMA_TILE, so that tests can force each tile in turn.
int forced_conv_mma() {
  const char* env = std::getenv("EMBER_CONV_MMA");
  int t = -1;
  if (env == nullptr || !absl::SimpleAtoi(env, &t) || t < 0 || t > kConvMmaTileCount) return -1;
  return t;
}

// Whether conv kp may run the tensor-core tile on this backend at all.
bool tile_allowed(const VariantContext& c, const KernelPlan& kp) {
  return forced_conv_mma() != 0 && tensor_cores_enabled() && has_tensor_cores(c.backend) &&
         conv_tile_dtype_fits(c.g, kp.anchor);
}

class ConvFamily final : public AnchoredFamily {
 public:
  const char* name() const override { return "conv"; }
  bool anchors(const ir::Node& n) const override { return n.op == ir::OpKind::Conv; }
  Fusion fusion() const override { return Fusion::Epilogue; }
  bool rereads_operands() const override { return true; }
  // The tiles read strided views only, the weight as contiguous rows: an operand that is not
  // one (a transposed convolution's flipped weight, an input padded or masked by the backward
  // pass) is stored for them where their shape suits a tile. H200, conv_block_train: the input
  // gradient's convolution read pad(dy) * mask on the SIMT template in 0.332 ms, stored on the
  // f32 tile in 0.282 (session 25, calls 8 and 9).
  bool stores_operand(const ir::Graph& g, ValueId v, ValueId in,
                      const std::vector<char>& stored) const override {
    // Not for the SIMT baseline (EMBER_CONV_MMA=0, EMBER_MMA=0). The planner does not know the
    // backend: on Vulkan and CUDA before sm_80 such an operand is stored without use.
    return forced_conv_mma() != 0 && tensor_cores_enabled() && conv_tile_dtype_fits(g, v) &&
           !conv_tile_reads(g, stored, v, in);
  }
  // A tile where the operands and the device admit it, else the SIMT block: a stored winner,
  // else the heuristic (tuned when autotuning is on), frozen before lowering.
  VariantChoice choose(const VariantContext& c, const KernelPlan& kp) const override {
    ConvShape s = conv_gemm(c.g, kp.anchor);
    if (s.N < kDirectBelow) return {kDirect, {}};
    const int64_t max_shared = max_dynamic_shared(c.backend);
    auto admitted = [&](int tile) {
      return conv_tile(c.g, c.plan.stored, c.layout, kp.anchor, tile, max_shared).has_value();
    };
    if (tile_allowed(c, kp)) {
      const int forced = forced_conv_mma();
      if (forced > 0 && admitted(forced)) return {kMmaVariant | static_cast<Variant>(forced), {}};
      if (conv_tile_is_simt(c.g, kp.anchor)) {
        // Exact f32: nothing to tune (conv_simt_tile_for says which tile, if any).
        const int tile = conv_simt_tile_for(s);
        if (tile > 0 && admitted(tile)) return {kMmaVariant | static_cast<Variant>(tile), {}};
      } else if (const int heuristic = conv_tile_heuristic(s.groups, s.M, s.N);
                 admitted(heuristic)) {
        s.mma = true;
        ConvChoice cc = choose_conv_block(s, {1, 1, heuristic}, c.backend);
        // A stored winner this device or these operands do not admit: the heuristic tile.
        if (cc.block.mma > 0 && !admitted(cc.block.mma)) cc.block = {1, 1, heuristic};
        return {variant_of(cc.block), std::move(cc.tune_key)};
      }
    }
    ConvChoice cc = choose_conv_block(s, block_of(conv_block(s)), c.backend);
    return {variant_of(cc.block), std::move(cc.tune_key)};
  }
  Variant tune(const VariantContext& c, const KernelPlan& kp,
               const std::function<double(Variant)>& time) const override {
    ConvShape s = conv_gemm(c.g, kp.anchor);
    s.mma = (kp.variant & kMmaVariant) != 0;
    const ConvBlock heuristic =
        s.mma ? ConvBlock{1, 1, conv_tile_heuristic(s.groups, s.M, s.N)} : block_of(conv_block(s));
    ConvBlock b = tune_conv_block(s, heuristic, c.backend,
                                  [&](ConvBlock cb) { return time(variant_of(cb)); });
    return variant_of(b);
  }
  // TF32 tiles round their operands: their outputs lie as far apart as f16 ones.
  float tuning_tolerance(const ir::Graph& g, const KernelPlan& kp) const override {
    if (g.type(kp.anchor).dtype == DType::F32 && (kp.variant & kMmaVariant) != 0) return 1e-2f;
    return AnchoredFamily::tuning_tolerance(g, kp);
  }
  std::string describe(Variant v) const override {
    if (v == kDirect) return "direct";
    if (v & kMmaVariant) return absl::StrCat("mma=", v & 0xff);
    return absl::StrCat("block=", v & 0xff, "x", v >> 8 & 0xff);
  }
  // The weight's sizes and the output channels per group are constants of the compiled code.
  uint64_t specialisation(const ir::Graph& g, const KernelPlan& kp) const override {
    const ir::Node& n = g.node(kp.anchor);
    const Shape& ws = g.type(n.inputs[1]).shape;
    uint64_t h = static_cast<uint64_t>(ws[0] / n.get<ir::ConvAttrs>().groups);
    for (int d = 1; d < ws.rank(); ++d) h = h * 1000003u + static_cast<uint64_t>(ws[d]);
    return h;
  }
  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel,
                       const Emitter::LayoutFn& layout, Emitter& e) const override {
    KernelGeometry out;
    const KernelPlan& kp = plan.kernels[kernel];
    if (kp.variant == kDirect) {
      lower_conv_direct(g, e, kp, out);
    } else if (kp.variant & kMmaVariant) {
      const int tile = static_cast<int>(kp.variant & 0xff);
      // choose() checked the tile against the device's shared memory.
      std::optional<ConvTile> t = conv_tile(g, plan.stored, layout, kp.anchor, tile, INT64_MAX);
      // choose() admitted the tile for these operands: not suiting them now is a bug.
      if (!t) {
        throw std::logic_error(absl::StrCat("conv %", kp.anchor, ": tile ", tile,
                                            " was not admitted for its operands"));
      }
      lower_conv_tile(g, e, kp, *t, out);
    } else {
      lower_conv(g, e, kp, kp.variant, out);
    }
    return out;
  }

 private:
  static ConvBlock block_of(Variant v) {
    return {static_cast<int>(v & 0xff), static_cast<int>(v >> 8 & 0xff)};
  }
  static Variant variant_of(ConvBlock b) {
    if (b.mma > 0) return kMmaVariant | static_cast<Variant>(b.mma);
    return static_cast<Variant>(b.rm | b.rn << 8);
  }
};

}  // namespace

const Family& conv_family() {
  static const ConvFamily family;
  return family;
}

}  // namespace ember::jit
