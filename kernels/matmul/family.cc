#include "kernels/matmul/family.h"

#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "kernels/matmul/lowering.h"
#include "kernels/matmul/operands.h"
#include "kernels/matmul/precision.h"
#include "kernels/matmul/split_k.h"
#include "kernels/matmul/tuning.h"

namespace ember::jit {
namespace {

using ir::ValueId;

class MatmulFamily final : public AnchoredFamily {
 public:
  const char* name() const override { return "matmul"; }
  bool anchors(const ir::Node& n) const override { return n.op == ir::OpKind::Matmul; }
  Fusion fusion() const override { return Fusion::Epilogue; }
  bool rereads_operands() const override { return true; }
  // The tile templates (tensor cores, the CUDA f32 vector tile) read strided views of stored
  // buffers only: an operand that is not one (a reshape of a permute, as attention's heads
  // merged back give; a cast) is stored, instead of sending the whole product to the SIMT
  // template. The copy is small next to the product that reads it.
  bool stores_operand(const ir::Graph& g, ValueId v, ValueId in,
                      const std::vector<char>& stored) const override {
    const DType t = g.type(v).dtype;
    const bool tiles = t == DType::F16 || t == DType::BF16 || t == DType::F32;
    return tiles && !tile_reads_in_place(g, stored, in);
  }
  bool rewrites(const ir::Graph& g, const runtime::Backend& backend) const override {
    return has_split_k(g, backend);
  }
  ir::Graph rewrite(const ir::Graph& g, std::vector<ValueId>& outputs,
                    const runtime::Backend& backend,
                    std::vector<ValueId>* old_to_new) const override {
    return split_k_matmuls(g, outputs, backend, old_to_new);
  }
  // Split-K applies to f32 matmuls that do not run on tensor cores: the parts asked for and
  // whether TF32 puts f32 matmuls on tensor cores.
  uint64_t rewrite_settings() const override {
    return static_cast<uint64_t>(split_k_requested()) | uint64_t{allow_tf32()} << 8 |
           uint64_t{auto_split_k()} << 9;
  }

  // The forced, stored or heuristic variant, then what the operands admit of it. A tile they do
  // not suit runs the SIMT template, which is not the tuned family: nothing to tune then.
  VariantChoice choose(const VariantContext& c, const KernelPlan& kp) const override {
    MatmulChoice mc = choose_matmul(c.g, kp.anchor, c.backend);
    MatmulVariant wanted{mc.block, mc.mma, mc.stages};
    MatmulVariant v = admitted(c.g, c.plan, c.layout, kp, wanted);
    if (wanted.mma > 0 && v.mma == 0) mc.tune_key.clear();
    return {pack(v), std::move(mc.tune_key)};
  }
  Variant tune(const VariantContext& c, const KernelPlan& kp,
               const std::function<double(Variant)>& time) const override {
    const MatmulVariant current = matmul_variant(kp.variant);
    const bool mma = current.mma > 0;
    // Each candidate runs as the operands admit it (a wgmma tile an M-major A cannot feed runs
    // its mma.sync twin), as it will when chosen.
    auto with = [&](int candidate) {
      MatmulVariant v = current;
      (mma ? v.mma : v.block) = candidate;
      return pack(admitted(c.g, c.plan, c.layout, kp, v));
    };
    int winner = tune_matmul(c.g, kp.anchor, c.backend, mma,
                             [&](int candidate) { return time(with(candidate)); });
    return with(winner);
  }
  // TF32 tiles round their operands differently (mma.sync and the swapped tile's register
  // operand round to nearest, wgmma's shared-memory operands drop the low bits): their outputs
  // lie as far apart as f16 ones.
  float tuning_tolerance(const ir::Graph& g, const KernelPlan& kp) const override {
    const MatmulVariant v = matmul_variant(kp.variant);
    if (g.type(kp.anchor).dtype == DType::F32 && v.mma > 0) return 1e-2f;
    return AnchoredFamily::tuning_tolerance(g, kp);
  }
  std::string describe(Variant variant) const override {
    MatmulVariant v = matmul_variant(variant);
    return absl::StrCat("block=", v.block, " mma=", v.mma, " stages=", v.stages);
  }

  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel,
                       const Emitter::LayoutFn& layout, Emitter& e) const override {
    const KernelPlan& kp = plan.kernels[kernel];
    const MatmulVariant v = matmul_variant(kp.variant);
    KernelGeometry out;
    if (v.mma == 0 && !is_vector_tile(v.block)) {
      lower_matmul_simt(g, plan, e, kp, v, out);
      return out;
    }
    std::optional<TileOperands> t = tile_operands(g, plan, layout, kp, v);
    // choose() admitted this variant for these operands: not suiting them now is a bug.
    if (!t || (v.mma > 0 && t->shape.wgmma != kMmaTiles[v.mma - 1].wgmma)) {
      throw std::logic_error(absl::StrCat("matmul %", kp.anchor, ": variant ", describe(kp.variant),
                                          " was not admitted for its operands"));
    }
    lower_matmul_tile(g, e, kp, *t, out);
    return out;
  }
};

}  // namespace

const Family& matmul_family() {
  static const MatmulFamily family;
  return family;
}

}  // namespace ember::jit
