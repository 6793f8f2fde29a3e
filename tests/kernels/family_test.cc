// The family registry, and the matmul family's one decision of what its operands admit: a tile
// variant either fits the operands as frozen or is replaced before lowering, never while
// lowering (issue 18). Expected variants follow the rules the tile templates state: tensor cores
// need the matmul's dtype (f16, bf16, f32 as TF32) on both operands with 16-byte aligned rows;
// wgmma needs a K-major A (else its mma.sync twin with the same block tile); the f32 vector tile
// needs a K-major A and an N-major B (else the SIMT template with block 8).
#include "kernels/matmul/family.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "ir/builder.h"
#include "jit/lower/lower.h"
#include "kernels/attention/family.h"
#include "kernels/collective/family.h"
#include "kernels/conv/family.h"
#include "kernels/matmul/operands.h"
#include "kernels/pointwise/family.h"
#include "kernels/registry.h"
#include "kernels/rnn/family.h"
#include "kernels/row/family.h"
#include "kernels/scatter/family.h"
#include "kernels/sort/family.h"

namespace ember::jit {
namespace {

using ir::ValueId;

TEST(Registry, EachAnchorHasOneFamilyAndEverythingElseIsPointwise) {
  ir::Graph g;
  ir::Builder b(g);
  ValueId x = b.input(0, {DType::F32, {4, 8}});
  ValueId w = b.input(1, {DType::F32, {8, 3}});
  ValueId mm = b.matmul(x, w);
  ValueId sum = b.reduce(ir::ReduceFn::Sum, x, 1);
  ValueId neg = b.unary(ir::UnaryFn::Neg, x);
  ValueId img = b.input(2, {DType::F32, {1, 2, 5, 5}});
  ValueId k = b.input(3, {DType::F32, {4, 2, 3, 3}});
  ValueId conv = b.conv(img, k, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1});
  ValueId comm =
      b.collective(x, {ir::CollectiveKind::AllReduce, ir::CollectiveReduce::Sum, 0, 1, 2});
  ValueId q = b.input(4, {DType::BF16, {1, 2, 8, 64}});
  ValueId att = b.attention(q, q, q, {0.125, false});
  ValueId xp = b.input(5, {DType::F32, {2, 3, 8}});
  ValueId wh = b.input(6, {DType::F32, {2, 8}});
  ValueId st = b.input(7, {DType::F32, {2, 2}});
  ValueId lstm = b.lstm(xp, wh, st, st, {});
  EXPECT_EQ(&family_for(g.node(att)), &attention_family());
  EXPECT_EQ(&family_for(g.node(lstm)), &rnn_family());
  EXPECT_EQ(&family_for(g.node(comm)), &collective_family());
  EXPECT_EQ(&family_for(g.node(mm)), &matmul_family());
  EXPECT_EQ(&family_for(g.node(conv)), &conv_family());
  EXPECT_EQ(&family_for(g.node(sum)), &row_family());
  EXPECT_EQ(&family_for(g.node(neg)), &pointwise_family());
  EXPECT_EQ(&family_for(g.node(x)), &pointwise_family());
  std::vector<std::string> names;
  for (const Family* f : families()) names.push_back(f->name());
  EXPECT_EQ(names, (std::vector<std::string>{"attention", "rnn", "matmul", "conv", "row", "sort",
                                             "scatter", "collective", "pointwise"}));
  for (const Family* f : families()) {
    int anchoring = f->anchors(g.node(mm)) + f->anchors(g.node(sum)) + f->anchors(g.node(neg)) +
                    f->anchors(g.node(conv)) + f->anchors(g.node(comm)) + f->anchors(g.node(att));
    EXPECT_LE(anchoring, 1) << f->name();
  }
}

// A matmul over inputs (views of them inlined), as the planner leaves it: inputs and the matmul
// stored, one kernel.
struct MatmulCase {
  ir::Graph g;
  Plan plan;
  std::vector<runtime::Array> layouts;
  ValueId mm = -1;

  // a_mmajor: A is the transpose of a stored [K, M] (an M-major A); b_kmajor: B the transpose
  // of a stored [N, K].
  MatmulCase(DType dt, int64_t m, int64_t n, int64_t k, bool a_mmajor, bool b_kmajor) {
    ir::Builder b(g);
    ValueId a = a_mmajor ? b.permute(b.input(0, {dt, {k, m}}), {1, 0}) : b.input(0, {dt, {m, k}});
    ValueId w = b_kmajor ? b.permute(b.input(1, {dt, {n, k}}), {1, 0}) : b.input(1, {dt, {k, n}});
    mm = b.matmul(a, w);
    plan.stored.assign(g.size(), 0);
    plan.producer.assign(g.size(), -1);
    for (ValueId v = 0; v < g.size(); ++v) {
      if (g.node(v).op == ir::OpKind::Input) plan.stored[v] = 1;
      layouts.push_back(runtime::Array::contiguous(nullptr, g.type(v)));
    }
    plan.stored[mm] = 1;
    plan.producer[mm] = 0;
    KernelPlan kp = matmul_family().start(g, mm);
    kp.family = &matmul_family();
    kp.outputs = {mm};
    plan.kernels.push_back(kp);
  }
  Emitter::LayoutFn layout() const {
    return [this](ValueId v) -> const runtime::Array& { return layouts[v]; };
  }
  MatmulVariant admit(MatmulVariant v) const {
    return admitted(g, plan, layout(), plan.kernels[0], v);
  }
};

TEST(MatmulAdmission, WgmmaTileNeedsAKMajorA) {
  MatmulCase k_major(DType::F16, 256, 256, 64, false, false);
  EXPECT_EQ(k_major.admit({8, 10, 2}).mma, 10);
  MatmulCase m_major(DType::F16, 256, 256, 64, true, false);
  // Tile 10 is 128 x 256: its mma.sync twin is tile 6 (128 x 256, 128-byte k rows).
  EXPECT_EQ(m_major.admit({8, 10, 2}).mma, 6);
  EXPECT_EQ(m_major.admit({8, 11, 2}).mma, 7);  // 128 x 128
  EXPECT_EQ(m_major.admit({8, 1, 2}).mma, 1);   // an mma.sync tile reads either
}

TEST(MatmulAdmission, TileThatCannotReadTheOperandsBecomesSimt) {
  MatmulCase ints(DType::I32, 64, 64, 64, false, false);
  MatmulVariant v = ints.admit({4, 1, 2});
  EXPECT_EQ(v.mma, 0);
  EXPECT_EQ(v.block, 4);
  EXPECT_EQ(v.stages, 2);
  // K = 33 f16: rows of 66 bytes are not whole 16-byte chunks.
  MatmulCase ragged(DType::F16, 64, 64, 33, false, false);
  EXPECT_EQ(ragged.admit({2, 1, 1}).mma, 0);
}

TEST(MatmulAdmission, VectorTilesNeedAnNMajorBAndWholeChunks) {
  for (int block : {kVectorTileBlock, kNarrowVectorTileBlock}) {
    SCOPED_TRACE(block);
    MatmulCase fits(DType::F32, 256, 256, 64, false, false);
    EXPECT_EQ(fits.admit({block, 0, 2}).block, block);
    // x^T @ dy: an M-major A is read M-contiguous.
    MatmulCase m_major(DType::F32, 256, 256, 64, true, false);
    EXPECT_EQ(m_major.admit({block, 0, 2}).block, block);
    // Operands a vector tile cannot read take the template's block for the output: 1 for
    // 256 x 256 (16 blocks of 64 x 64 would leave a large GPU idle), 4 for 1024 x 2048 (512
    // blocks of 64 x 64; 8 would give 128), 8 for 2048 x 2048 (256 blocks of 128 x 128).
    MatmulCase b_kmajor(DType::F32, 256, 256, 64, false, true);
    MatmulVariant v = b_kmajor.admit({block, 0, 2});
    EXPECT_EQ(v.block, 1);
    EXPECT_EQ(v.mma, 0);
    EXPECT_EQ(MatmulCase(DType::F32, 1024, 2048, 64, false, true).admit({block, 0, 2}).block, 4);
    EXPECT_EQ(MatmulCase(DType::F32, 2048, 2048, 64, false, true).admit({block, 0, 2}).block, 8);
    MatmulCase odd_k(DType::F32, 256, 256, 66, false, false);  // K not a multiple of 4
    EXPECT_EQ(odd_k.admit({block, 0, 2}).block, 1);
    MatmulCase odd_m(DType::F32, 254, 256, 64, true, false);  // M-major rows of 254
    EXPECT_EQ(odd_m.admit({block, 0, 2}).block, 1);
    MatmulCase odd_m_kmajor(DType::F32, 254, 256, 64, false, false);  // rows may be ragged
    EXPECT_EQ(odd_m_kmajor.admit({block, 0, 2}).block, block);
  }
}

TEST(MatmulAdmission, LoweringAFrozenVariantTheOperandsDoNotAdmitIsABug) {
  MatmulCase b_kmajor(DType::F32, 256, 256, 64, false, true);
  b_kmajor.plan.kernels[0].variant = pack({kVectorTileBlock, 0, 2});
  EXPECT_THROW(lower_kernel(b_kmajor.g, b_kmajor.plan, 0, b_kmajor.layout()), std::logic_error);
  b_kmajor.plan.kernels[0].variant = pack(b_kmajor.admit({kVectorTileBlock, 0, 2}));
  EXPECT_FALSE(lower_kernel(b_kmajor.g, b_kmajor.plan, 0, b_kmajor.layout()).launch.mma);
}

}  // namespace
}  // namespace ember::jit
