// Without a GPU: every kernel pattern the planner produces renders to CUDA C++ that NVRTC
// compiles for Hopper (sm_90a). Graphs cover every primitive and dtype family, fused and unfused.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <functional>

#include "absl/strings/str_cat.h"
#include "ir/builder.h"
#include "jit/codegen/cuda_source.h"
#include "jit/lower/lower.h"
#include "jit/plan/plan.h"
#include "kernels/conv/family.h"
#include "kernels/conv/tensor_core.h"
#include "kernels/matmul/family.h"
#include "kernels/matmul/operands.h"
#include "kernels/matmul/precision.h"
#include "runtime/cuda/nvrtc.h"
#include "tests/jit/gpu_util.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::Builder;
using ir::ReduceFn;
using ir::UnaryFn;
using ir::ValueId;

struct Case {
  std::string name;
  std::function<std::vector<ValueId>(Builder&)> build;
};

ValueId in(Builder& b, DType t, Shape s) {
  static int slot = 0;
  return b.input(slot++, {t, std::move(s)});
}

std::vector<Case> cases() {
  std::vector<Case> out;
  const DType floats[] = {DType::F32, DType::F64, DType::F16, DType::BF16};
  for (DType t : floats) {
    out.push_back({absl::StrCat("unary_", dtype_name(t)), [t](Builder& b) {
                     ValueId x = in(b, t, {8, 130});
                     std::vector<ValueId> outs;
                     for (int f = 0; f < ir::kUnaryFnCount; ++f) {
                       auto fn = static_cast<UnaryFn>(f);
                       if (fn == UnaryFn::LogicalNot || fn == UnaryFn::BitwiseNot) continue;
                       outs.push_back(b.unary(fn, x));
                     }
                     return outs;
                   }});
  }
  for (DType t : {DType::F32, DType::F64, DType::I32, DType::I64, DType::U8}) {
    out.push_back({absl::StrCat("binary_", dtype_name(t)), [t](Builder& b) {
                     ValueId x = in(b, t, {4, 1, 33});
                     ValueId y = in(b, t, {1, 5, 33});
                     std::vector<ValueId> outs;
                     for (int f = 0; f < ir::kBinaryFnCount; ++f) {
                       auto fn = static_cast<BinaryFn>(f);
                       bool logical = fn == BinaryFn::LogicalAnd || fn == BinaryFn::LogicalOr;
                       bool bitwise = fn >= BinaryFn::BitAnd;
                       if (logical || (bitwise && is_float(t))) continue;
                       outs.push_back(b.binary(fn, x, y));
                     }
                     return outs;
                   }});
  }
  out.push_back({"bool_logic_where", [](Builder& b) {
                   ValueId p = in(b, DType::Bool, {6, 7});
                   ValueId q = in(b, DType::Bool, {6, 7});
                   ValueId x = in(b, DType::F32, {6, 7});
                   ValueId a = b.binary(BinaryFn::LogicalAnd, p, b.unary(UnaryFn::LogicalNot, q));
                   return std::vector<ValueId>{b.binary(BinaryFn::LogicalOr, a, q),
                                               b.where(a, x, b.unary(UnaryFn::Neg, x))};
                 }});
  out.push_back({"casts", [](Builder& b) {
                   std::vector<ValueId> outs;
                   for (int from = 0; from < kDTypeCount; ++from) {
                     ValueId x = in(b, static_cast<DType>(from), {3, 5});
                     for (int to = 0; to < kDTypeCount; ++to) {
                       outs.push_back(b.cast(x, static_cast<DType>(to)));
                     }
                   }
                   return outs;
                 }});
  for (DType t : {DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool, DType::F16}) {
    out.push_back({absl::StrCat("reduce_", dtype_name(t)), [t](Builder& b) {
                     ValueId x = in(b, t, {9, 300});
                     std::vector<ValueId> outs;
                     for (int f = 0; f < ir::kReduceFnCount; ++f) {
                       auto fn = static_cast<ReduceFn>(f);
                       if (is_bool(t) && (fn == ReduceFn::Sum || fn == ReduceFn::Prod)) continue;
                       outs.push_back(b.reduce(fn, x, 1));
                       outs.push_back(b.reduce(fn, x, 0));
                     }
                     return outs;
                   }});
  }
  out.push_back(
      {"softmax_layernorm_rows", [](Builder& b) {
         ValueId x = in(b, DType::F32, {16, 1000});
         ValueId m = b.reduce(ReduceFn::Max, x, 1);
         ValueId e = b.unary(UnaryFn::Exp, b.binary(BinaryFn::Sub, x, m));
         ValueId sm = b.binary(BinaryFn::Div, e, b.reduce(ReduceFn::Sum, e, 1));
         ValueId mu = b.reduce(ReduceFn::Sum, x, 1);
         ValueId c = b.binary(BinaryFn::Sub, x, mu);
         ValueId v = b.reduce(ReduceFn::Sum, b.binary(BinaryFn::Mul, c, c), 1);
         return std::vector<ValueId>{sm, b.binary(BinaryFn::Div, c, b.unary(UnaryFn::Sqrt, v))};
       }});
  out.push_back({"views", [](Builder& b) {
                   ValueId x = in(b, DType::F32, {4, 6, 8});
                   ValueId p = b.permute(x, {2, 0, 1});
                   ValueId s = b.slice(p, {1, 0, 2}, {3, 4, 2}, {2, 1, 2});
                   ValueId f = b.flip(s, {0, 2});
                   ValueId r = b.reshape(b.binary(BinaryFn::Add, f, f), {24});
                   ValueId pd = b.pad(x, {1, 0, 2}, {0, 3, 1}, ir::Scalar::from_double(0.5));
                   ValueId cat = b.concat({x, b.flip(x, {0}), x}, 1);
                   ValueId e = b.expand(in(b, DType::F32, {1, 6, 1}), {4, 6, 8});
                   return std::vector<ValueId>{r, pd, cat, b.binary(BinaryFn::Mul, e, x)};
                 }});
  out.push_back({"vectorized_pointwise", [](Builder& b) {
                   ValueId x = in(b, DType::F32, {64, 64});
                   ValueId y = in(b, DType::I32, {64, 64});
                   ValueId row = in(b, DType::F32, {1, 64});
                   ValueId z = b.binary(BinaryFn::Add, b.binary(BinaryFn::Mul, x, row),
                                        b.cast(y, DType::F32));
                   return std::vector<ValueId>{z, b.binary(BinaryFn::Add, y, y)};
                 }});
  for (DType t : {DType::F32, DType::F64, DType::I32, DType::F16, DType::BF16}) {
    out.push_back({absl::StrCat("matmul_", dtype_name(t)), [t](Builder& b) {
                     ValueId a = in(b, t, {2, 1, 17, 33});
                     ValueId w = in(b, t, {1, 3, 33, 9});
                     ValueId bias = in(b, t, {1, 1, 1, 9});
                     ValueId mm = b.matmul(b.flip(a, {2}), w);
                     ValueId y = b.binary(BinaryFn::Max, b.binary(BinaryFn::Add, mm, bias), bias);
                     return std::vector<ValueId>{y};
                   }});
  }
  // The fused attention tile (kernels/attention) in both half types, head dims 64 and 128,
  // causal or not, with grouped-query heads and a permuted (strided) query.
  for (DType t : {DType::F16, DType::BF16}) {
    for (int64_t d : {64, 128}) {
      out.push_back(
          {absl::StrCat("attention_", dtype_name(t), "_", d), [t, d](Builder& b) {
             ValueId q = b.permute(in(b, t, {2, 33, 4, d}), {0, 2, 1, 3});
             ValueId kv = in(b, t, {2, 2, 70, d});
             ValueId dout = in(b, t, {2, 4, 33, d});
             ValueId lse = b.attention(q, kv, kv, {0.125, true, ir::kAttentionLse});
             ValueId delta = in(b, DType::F32, {2, 4, 33, 1});
             // The non-causal output then its log-sum-exp: one kernel writes both.
             ValueId out = b.attention(q, kv, kv, {0.125, false});
             ValueId out_lse = b.attention(q, kv, kv, {0.125, false, ir::kAttentionLse});
             return std::vector<ValueId>{
                 out,
                 out_lse,
                 b.attention(q, kv, kv, {0.125, true}),
                 lse,
                 b.attention_grad(q, kv, kv, dout, lse, delta, {0.125, true, ir::kAttentionGradQ}),
                 b.attention_grad(q, kv, kv, dout, lse, delta,
                                  {0.125, true, ir::kAttentionGradKV})};
           }});
    }
  }
  out.push_back({"indexing", [](Builder& b) {
                   ValueId x = in(b, DType::F32, {5, 7});
                   ValueId idx = in(b, DType::I64, {5, 3});
                   ValueId vals = in(b, DType::F32, {5, 3});
                   ValueId i32 = in(b, DType::I32, {5, 3});
                   return std::vector<ValueId>{b.gather(x, 1, idx), b.gather(x, 1, i32),
                                               b.scatter_add(x, 1, idx, vals)};
                 }});
  // A scatter in the sorted form the scatter family rewrites an embedding's gradient into
  // (ids gathered by their argsort, expanded over the width): binary searches.
  out.push_back({"scatter_sorted", [](Builder& b) {
                   ValueId x = in(b, DType::F32, {300, 4});
                   ValueId ids = in(b, DType::I32, {100, 1});
                   ValueId vals = in(b, DType::F32, {100, 4});
                   ValueId perm = b.sort(ids, 0, false, true);
                   ValueId sorted = b.expand(b.gather(ids, 0, perm), {100, 4});
                   ValueId ordered = b.gather(vals, 0, b.expand(perm, {100, 4}));
                   return std::vector<ValueId>{b.scatter_add(x, 0, sorted, ordered)};
                 }});
  out.push_back({"sort_random_iota", [](Builder& b) {
                   ValueId x = in(b, DType::F32, {6, 50});
                   ValueId i = in(b, DType::I32, {6, 50});
                   ir::RandomAttrs u{ir::RandomDist::Uniform, -1, 1, 42, 7};
                   ir::RandomAttrs n{ir::RandomDist::Normal, 0, 1, 42, 9000};
                   ir::RandomAttrs be{ir::RandomDist::Bernoulli, 0.3, 0, 42, 99999};
                   return std::vector<ValueId>{
                       b.sort(x, 1, false, false),       b.sort(x, 1, true, true),
                       b.sort(i, 0, true, false),        b.random({6, 50}, DType::F32, u),
                       b.random({6, 50}, DType::F64, n), b.random({6, 50}, DType::F16, be),
                       b.iota({6, 50}, DType::I64, 1),   b.binary(BinaryFn::Div, i, i)};
                 }});
  return out;
}

TEST(CudaCompile, EveryKernelPatternCompilesWithNvrtc) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  int compiled = 0;
  for (const Case& c : cases()) {
    for (bool fusion : {true, false}) {
      ir::Graph g;
      Builder b(g);
      std::vector<ValueId> outs = c.build(b);
      Plan plan = make_plan(g, outs, fusion);
      std::vector<runtime::Array> layouts;
      layouts.reserve(g.size());
      for (ValueId v = 0; v < g.size(); ++v)
        layouts.push_back(runtime::Array::contiguous(nullptr, g.type(v)));
      auto layout = [&](ValueId v) -> const runtime::Array& { return layouts[v]; };
      for (int k = 0; k < static_cast<int>(plan.kernels.size()); ++k) {
        LoweredKernel lk = lower_kernel(g, plan, k, layout);
        std::string source = render_cuda(lk.desc);
        SCOPED_TRACE(
            absl::StrCat(c.name, fusion ? " fused" : " unfused", " kernel ", k, " ", lk.desc.name));
        std::vector<char> cubin;
        try {
          cubin = runtime::cuda::nvrtc_compile(source, lk.desc.name, "sm_90a", false);
        } catch (const Error& e) {
          ADD_FAILURE() << e.what();
          continue;
        }
        EXPECT_GT(cubin.size(), 100u);
        ++compiled;
      }
    }
  }
  EXPECT_GT(compiled, 50);
}

// Training's attention output and log-sum-exp (same operands and attributes) plan as one
// kernel that writes both.
TEST(CudaCompile, AttentionOutputAndLogSumExpShareOneKernel) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  ir::Graph g;
  Builder b(g);
  ValueId q = in(b, DType::BF16, {2, 4, 100, 64}), kv = in(b, DType::BF16, {2, 4, 90, 64});
  ValueId out = b.attention(q, kv, kv, {0.125, true});
  ValueId lse = b.attention(q, kv, kv, {0.125, true, ir::kAttentionLse});
  ValueId other = b.attention(q, kv, kv, {0.25, true, ir::kAttentionLse});  // another scale
  Plan plan = make_plan(g, {out, lse, other}, true);
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].outputs, (std::vector<ValueId>{out, lse}));
  EXPECT_EQ(plan.kernels[1].outputs, (std::vector<ValueId>{other}));
  std::vector<runtime::Array> layouts;
  for (ValueId v = 0; v < g.size(); ++v)
    layouts.push_back(runtime::Array::contiguous(nullptr, g.type(v)));
  auto layout = [&](ValueId v) -> const runtime::Array& { return layouts[v]; };
  LoweredKernel lk = lower_kernel(g, plan, 0, layout);
  std::string source = render_cuda(lk.desc);
  // The output and the log-sum-exp from the same call (the lse-only kernel leaves o null).
  EXPECT_NE(source.find("fa_.o = const_cast<unsigned char*>("), std::string::npos) << source;
  EXPECT_NE(source.find("fa_.lse = reinterpret_cast<float*>(b"), std::string::npos) << source;
  EXPECT_GT(runtime::cuda::nvrtc_compile(source, lk.desc.name, "sm_90a", false).size(), 100u);
}

// A graph's fused plan with every value laid out contiguously, as a flush of fresh inputs has it.
struct PlannedGraph {
  Plan plan;
  std::vector<runtime::Array> layouts;
  Emitter::LayoutFn layout = [this](ValueId v) -> const runtime::Array& { return layouts[v]; };
  PlannedGraph(ir::Graph& g, const std::vector<ValueId>& outs) : plan(make_plan(g, outs, true)) {
    layouts.reserve(g.size());
    for (ValueId v = 0; v < g.size(); ++v)
      layouts.push_back(runtime::Array::contiguous(nullptr, g.type(v)));
  }
  PlannedGraph(const PlannedGraph&) = delete;  // `layout` refers to this object
};

// Lowers every kernel of the graph with tensor-core matmuls requested; returns the kernels.
std::vector<LoweredKernel> lower_with_mma(ir::Graph& g, const std::vector<ValueId>& outs,
                                          int tile = 1) {
  PlannedGraph pg(g, outs);
  Plan& plan = pg.plan;
  const Emitter::LayoutFn& layout = pg.layout;
  // As the freeze stage does: the tile where the operands admit it.
  for (KernelPlan& kp : plan.kernels) {
    if (kp.family == &matmul_family())
      kp.variant = pack(admitted(g, plan, layout, kp, MatmulVariant{0, tile, 1}));
  }
  std::vector<LoweredKernel> out;
  for (int k = 0; k < static_cast<int>(plan.kernels.size()); ++k)
    out.push_back(lower_kernel(g, plan, k, layout));
  return out;
}

// The tensor-core template in every dtype and operand layout (K-major or M/N-major A and B, as
// x @ w, x @ w^T, x^T @ g), batched with broadcasting and with a fused epilogue, compiles for
// Hopper; operands it cannot stream (unaligned K) fall back to the SIMT template.
TEST(CudaCompile, TensorCoreMatmulsCompileWithNvrtc) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  int compiled = 0;
  for (DType t : {DType::F16, DType::BF16, DType::F32}) {
    for (bool a_t : {false, true}) {
      for (bool b_t : {false, true}) {
        ir::Graph g;
        Builder b(g);
        ValueId a = a_t ? b.permute(in(b, t, {3, 40, 72}), {0, 2, 1}) : in(b, t, {3, 72, 40});
        ValueId w = b_t ? b.permute(in(b, t, {1, 24, 40}), {0, 2, 1}) : in(b, t, {1, 40, 24});
        ValueId bias = in(b, t, {1, 1, 24});
        ValueId y = b.unary(UnaryFn::Tanh, b.binary(BinaryFn::Add, b.matmul(a, w), bias));
        SCOPED_TRACE(absl::StrCat(dtype_name(t), a_t ? " A^T" : " A", b_t ? " B^T" : " B"));
        for (const LoweredKernel& lk : lower_with_mma(g, {y})) {
          EXPECT_NE(lk.desc.name.find("_mma"), std::string::npos) << lk.desc.name;
          EXPECT_TRUE(lk.launch.mma);
          std::string source = render_cuda(lk.desc);
          try {
            EXPECT_GT(runtime::cuda::nvrtc_compile(source, lk.desc.name, "sm_90a", false).size(),
                      100u);
            ++compiled;
          } catch (const Error& e) {
            ADD_FAILURE() << e.what();
          }
        }
      }
    }
  }
  EXPECT_EQ(compiled, 12);
  // Every other tile shape, in one layout each (f32 through TF32 included).
  for (int tile = 2; tile <= kMmaTileCount; ++tile) {
    ir::Graph g;
    Builder b(g);
    DType t = tile % 2 ? DType::F32 : DType::BF16;
    ValueId mm = b.matmul(b.permute(in(b, t, {64, 200}), {1, 0}), in(b, t, {64, 136}));
    for (const LoweredKernel& lk : lower_with_mma(g, {mm}, tile)) {
      SCOPED_TRACE(absl::StrCat("tile ", tile, " ", dtype_name(t)));
      EXPECT_TRUE(lk.launch.mma);
      std::string source = render_cuda(lk.desc);
      EXPECT_NO_THROW(runtime::cuda::nvrtc_compile(source, lk.desc.name, "sm_90a", false));
    }
  }
}

// The wgmma tiles (Hopper warpgroup mma) compile in f16 and bf16 with a K-major A and either B,
// and in TF32 through the copy engine (8-warp tiles), an N-major B swapping the operands' roles;
// where they cannot run (an M-major A, TF32 on the 12-warp tile) the lowering takes a mma.sync
// tile instead.
TEST(CudaCompile, WgmmaTilesCompileOrFallBack) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  int wgmma = 0;
  for (int tile = 1; tile <= kMmaTileCount; ++tile) {
    if (!kMmaTiles[tile - 1].wgmma) continue;
    for (DType t : {DType::F16, DType::BF16, DType::F32}) {
      for (int layout = 0; layout < 3; ++layout) {  // A B, A B^T, A^T B
        ir::Graph g;
        Builder b(g);
        ValueId a = layout == 2 ? b.permute(in(b, t, {72, 136}), {1, 0}) : in(b, t, {136, 72});
        ValueId w = layout == 1 ? b.permute(in(b, t, {200, 72}), {1, 0}) : in(b, t, {72, 200});
        ValueId y = b.unary(UnaryFn::Tanh, b.matmul(a, w));
        const bool tf32 = t == DType::F32;
        const bool expect_wgmma = layout != 2 && (!tf32 || kMmaTiles[tile - 1].threads() == 256);
        SCOPED_TRACE(absl::StrCat("tile ", tile, " ", dtype_name(t), " layout ", layout));
        for (const LoweredKernel& lk : lower_with_mma(g, {y}, tile)) {
          EXPECT_TRUE(lk.launch.mma);
          std::string source = render_cuda(lk.desc);
          const bool swapped = source.find("wgmma_tf32_nmajor_tile<") != std::string::npos;
          const bool tma = source.find("wgmma_tma_tile<") != std::string::npos || swapped;
          EXPECT_EQ(source.find("wgmma_tile<") != std::string::npos || tma, expect_wgmma);
          // The 8-warp tiles of one matrix take the copy engine, with a producer warpgroup.
          EXPECT_EQ(tma, expect_wgmma && kMmaTiles[tile - 1].threads() == 256);
          EXPECT_EQ(swapped, expect_wgmma && tf32 && layout == 0);
          EXPECT_EQ(lk.launch.tiled_views.size(), tma ? 2u : 0u);
          if (expect_wgmma)
            EXPECT_EQ(lk.desc.workgroup_size, kMmaTiles[tile - 1].threads() + (tma ? 128u : 0u));
          try {
            EXPECT_GT(runtime::cuda::nvrtc_compile(source, lk.desc.name, "sm_90a", false).size(),
                      100u);
            wgmma += expect_wgmma;
          } catch (const Error& e) {
            ADD_FAILURE() << e.what();
          }
        }
      }
    }
  }
  EXPECT_GE(wgmma, 10);
}

// A copy-engine tile's tensor maps: a row stride for every view (one row included: the matmul's
// own ld is 0 there), A's box the tile's rows, B's one 64 x 64 box per atom when N-major.
TEST(CudaCompile, TiledViewsOfOneRowAndNMajorB) {
  ir::Graph g;
  Builder b(g);
  ValueId mm = b.matmul(in(b, DType::BF16, {1, 70}), in(b, DType::BF16, {70, 200}));
  std::vector<LoweredKernel> lks = lower_with_mma(g, {mm}, 11);  // wgmma 128 x 128
  ASSERT_EQ(lks.size(), 1u);
  ASSERT_EQ(lks[0].launch.tiled_views.size(), 2u);
  const runtime::TiledView& a = lks[0].launch.tiled_views[0];
  const runtime::TiledView& w = lks[0].launch.tiled_views[1];
  EXPECT_EQ(a.rows, 1u);
  EXPECT_EQ(a.cols, 70u);
  EXPECT_EQ(a.row_stride, 72u);  // rounded up to 16 bytes
  EXPECT_EQ(a.box_rows, 128u);
  EXPECT_EQ(w.rows, 70u);  // k-rows of N-contiguous B
  EXPECT_EQ(w.cols, 200u);
  EXPECT_EQ(w.row_stride, 200u);
  EXPECT_EQ(w.box_rows, 64u);
  EXPECT_EQ(w.box_cols, 64u);
}

// EMBER_NVRTC_VERBOSE=1 prints each compile's log with ptxas's report (registers, spills),
// which is otherwise read only when a compile fails.
TEST(CudaCompile, VerboseCompilesReportRegisters) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  const std::string source =
      "extern \"C\" __global__ void ember_verbose(float* p) { p[threadIdx.x] = 1.0f; }\n";
  setenv("EMBER_NVRTC_VERBOSE", "1", 1);
  ::testing::internal::CaptureStderr();
  runtime::cuda::nvrtc_compile(source, "ember_verbose", "sm_90a", false);
  const std::string log = ::testing::internal::GetCapturedStderr();
  unsetenv("EMBER_NVRTC_VERBOSE");
  EXPECT_NE(log.find("ember nvrtc: ember_verbose for sm_90a"), std::string::npos) << log;
  EXPECT_NE(log.find("registers"), std::string::npos) << log;
  ::testing::internal::CaptureStderr();
  runtime::cuda::nvrtc_compile(source, "ember_verbose", "sm_90a", false);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "quiet by default";
}

// The TF32 copy-engine tiles' maps: 4-byte elements in boxes 32 wide (128 bytes); the swapped
// tile (an N-major B) runs in clusters of two that each copy half of the 256 rows of A its block
// covers, and boxes B by 32 k-rows of 32 columns; a K-major B is boxed by the block's columns;
// one row's stride is rounded to 16 bytes (4 floats).
TEST(CudaCompile, Tf32TiledViews) {
  for (bool b_kmajor : {false, true}) {
    SCOPED_TRACE(b_kmajor ? "A B^T" : "A B");
    ir::Graph g;
    Builder b(g);
    // (A K-major B's rows must be whole 16-byte chunks: K = 72 there.)
    const int64_t k = b_kmajor ? 72 : 70;
    ValueId w =
        b_kmajor ? b.permute(in(b, DType::F32, {200, k}), {1, 0}) : in(b, DType::F32, {k, 200});
    ValueId mm = b.matmul(in(b, DType::F32, {1, k}), w);
    std::vector<LoweredKernel> lks = lower_with_mma(g, {mm}, 10);  // wgmma 128 x 256
    ASSERT_EQ(lks.size(), 1u);
    ASSERT_EQ(lks[0].launch.tiled_views.size(), 2u);
    const runtime::TiledView& a = lks[0].launch.tiled_views[0];
    const runtime::TiledView& bv = lks[0].launch.tiled_views[1];
    const std::string source = render_cuda(lks[0].desc);
    EXPECT_EQ(source.find("wgmma_tf32_nmajor_tile<") != std::string::npos, !b_kmajor);
    EXPECT_EQ(source.find("__cluster_dims__(2, 1, 1)") != std::string::npos, !b_kmajor);
    EXPECT_EQ(lks[0].desc.cluster_size, b_kmajor ? 1u : 2u);
    for (const runtime::TiledView* v : {&a, &bv}) {
      EXPECT_EQ(v->element_bytes, 4u);
      EXPECT_EQ(v->box_cols, 32u);
    }
    EXPECT_EQ(a.rows, 1u);
    EXPECT_EQ(a.cols, static_cast<uint64_t>(k));
    EXPECT_EQ(a.row_stride, 72u);  // rounded up to 16 bytes
    // C's block: 256 x 128 computed as C^T (swapped; half of its rows per workgroup of a
    // cluster), 128 x 256 otherwise.
    EXPECT_EQ(a.box_rows, 128u);
    EXPECT_EQ(bv.rows, b_kmajor ? 200u : 70u);
    EXPECT_EQ(bv.cols, b_kmajor ? 72u : 200u);
    EXPECT_EQ(bv.row_stride, b_kmajor ? 72u : 200u);
    EXPECT_EQ(bv.box_rows, b_kmajor ? 256u : 32u);
  }
}

// The f32 vector tiles (MatmulVariant::block = kVectorTileBlock, 128 x 256, and
// kNarrowVectorTileBlock, 128 x 128, two per SM) compile, batched with a fused epilogue, for
// x @ w and x^T @ w (an M-major A); x @ w^T and rows of an odd length take the SIMT template.
TEST(CudaCompile, VectorTileCompilesOrFallsBack) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  for (int block : {kVectorTileBlock, kNarrowVectorTileBlock}) {
    SCOPED_TRACE(block);
    const int64_t bn = block == kVectorTileBlock ? 256 : 128;
    int tiles = 0;
    // A B, A B^T, A^T B, odd K, and a K of 70 sliced from rows of 72 (aligned rows, a partial
    // last chunk).
    for (int layout = 0; layout < 5; ++layout) {
      ir::Graph g;
      Builder b(g);
      const int64_t k = layout == 3 ? 71 : layout == 4 ? 70 : 72;
      ValueId a = layout == 2 ? b.permute(in(b, DType::F32, {2, k, 136}), {0, 2, 1})
                  : layout == 4
                      ? b.slice(in(b, DType::F32, {2, 136, 72}), {0, 0, 0}, {2, 136, 70}, {1, 1, 1})
                      : in(b, DType::F32, {2, 136, k});
      ValueId w = layout == 1 ? b.permute(in(b, DType::F32, {1, 200, k}), {0, 2, 1})
                              : in(b, DType::F32, {1, k, 200});
      ValueId y = b.unary(UnaryFn::Tanh,
                          b.binary(BinaryFn::Add, b.matmul(a, w), in(b, DType::F32, {1, 1, 200})));
      Plan plan = make_plan(g, {y}, true);
      std::vector<runtime::Array> layouts;
      for (ValueId v = 0; v < g.size(); ++v)
        layouts.push_back(runtime::Array::contiguous(nullptr, g.type(v)));
      auto lay = [&](ValueId v) -> const runtime::Array& { return layouts[v]; };
      for (KernelPlan& kp : plan.kernels) {
        if (kp.family == &matmul_family())
          kp.variant = pack(admitted(g, plan, lay, kp, MatmulVariant{block, 0, 1}));
      }
      SCOPED_TRACE(absl::StrCat("layout ", layout));
      ASSERT_EQ(plan.kernels.size(), 1u);
      LoweredKernel lk = lower_kernel(g, plan, 0, lay);
      std::string source = render_cuda(lk.desc);
      const bool tile = source.find("simt_tile<") != std::string::npos;
      EXPECT_EQ(tile, layout == 0 || layout == 2);
      EXPECT_FALSE(lk.launch.mma);  // no tensor cores
      const std::string bound =
          block == kVectorTileBlock ? "__launch_bounds__(256, 1)" : "__launch_bounds__(256, 2)";
      EXPECT_EQ(source.find(bound) != std::string::npos, tile);
      if (tile) {
        EXPECT_EQ(lk.desc.dynamic_shared_bytes, 2u * (128 + bn) * 32 * 4);
        EXPECT_NE(source.find(absl::StrCat(", ", bn, layout == 2 ? ", false>(" : ", true>(")),
                  std::string::npos);
      }
      try {
        EXPECT_GT(runtime::cuda::nvrtc_compile(source, lk.desc.name, "sm_90a", false).size(), 100u);
        tiles += tile;
      } catch (const Error& e) {
        ADD_FAILURE() << e.what();
      }
    }
    EXPECT_EQ(tiles, 2);
  }
}

TEST(CudaCompile, UnalignedMatmulRowsFallBackToSimt) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  ir::Graph g;
  Builder b(g);
  ValueId mm = b.matmul(in(b, DType::BF16, {16, 33}), in(b, DType::BF16, {33, 16}));
  for (const LoweredKernel& lk : lower_with_mma(g, {mm})) {
    EXPECT_FALSE(lk.launch.mma) << "K = 33 rows are not 16-byte aligned";
    EXPECT_EQ(lk.desc.name.find("_mma"), std::string::npos);
  }
}

// The conv family's tiles (kernels/conv/conv_mma.cuh, conv_simt.cuh): every tensor-core tile in
// f16, bf16 and TF32 and the exact f32 tile, a 2-d convolution with padding, stride and dilation
// and a fused bias and max, a grouped one and a 1-d one, lowered as the freeze stage does when the
// tile is admitted, and compiled for Hopper. A weight whose rows are not 16-byte aligned (K = 27
// bf16) is not admitted.
TEST(CudaCompile, ConvTilesCompileWithNvrtc) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  const bool tf32 = allow_tf32();
  set_allow_tf32(true);
  auto lower_conv = [](ir::Graph& g, ValueId y, int tile) {
    PlannedGraph pg(g, {y});
    std::vector<LoweredKernel> out;
    for (int k = 0; k < static_cast<int>(pg.plan.kernels.size()); ++k) {
      KernelPlan& kp = pg.plan.kernels[k];
      if (kp.family == &conv_family() &&
          conv_tile(g, pg.plan.stored, pg.layout, kp.anchor, tile, 227 * 1024))
        kp.variant = kConvMmaVariant | static_cast<Variant>(tile);
      out.push_back(lower_kernel(g, pg.plan, k, pg.layout));
    }
    return out;
  };
  // Whether conv y of graph g admits `tile` within `shared` bytes of shared memory.
  auto admits = [](ir::Graph& g, ValueId y, int tile, int64_t shared) {
    PlannedGraph pg(g, {y});
    return conv_tile(g, pg.plan.stored, pg.layout, y, tile, shared).has_value();
  };
  int compiled = 0;
  for (int tile = 1; tile <= kConvMmaTileCount; ++tile) {
    // The last three tiles are exact f32's (no tensor cores): f32 without TF32 only.
    const bool simt = tile >= kConvSimtTile;
    set_allow_tf32(!simt);
    for (DType t : {DType::F16, DType::BF16, DType::F32}) {
      if (simt && t != DType::F32) continue;
      for (int shape = 0; shape < 3; ++shape) {
        ir::Graph g;
        Builder b(g);
        ValueId y;
        if (shape == 0) {  // 3x3, stride 2, dilation 2, pad 2, + bias, max
          ValueId x = in(b, t, {2, 24, 19, 17});
          ValueId w = in(b, t, {40, 24, 3, 3});
          ValueId c = b.conv(x, w, {{2, 2}, {2, 2}, {2, 2}, {2, 2}, 1});
          ValueId bias = in(b, t, {1, 40, 1, 1});
          y = b.binary(BinaryFn::Max, b.binary(BinaryFn::Add, c, bias), bias);
        } else if (shape == 1) {  // two groups of 16 outputs, 1x1
          y = b.conv(in(b, t, {3, 32, 9, 11}), in(b, t, {32, 16, 1, 1}),
                     {{1, 1}, {0, 0}, {0, 0}, {1, 1}, 2});
        } else {  // 1-d, kernel 5, pad 2
          y = b.conv(in(b, t, {4, 16, 37}), in(b, t, {24, 16, 5}), {{1}, {2}, {2}, {1}, 1});
        }
        SCOPED_TRACE(absl::StrCat("tile ", tile, " ", dtype_name(t), " shape ", shape));
        for (const LoweredKernel& lk : lower_conv(g, y, tile)) {
          std::string source = render_cuda(lk.desc);
          ASSERT_NE(source.find(simt ? "conv_simt_tile<" : "conv_mma_tile<"), std::string::npos)
              << lk.desc.name;
          EXPECT_EQ(lk.launch.mma, !simt) << "the f32 tile runs no tensor cores";
          // The two-group split-k f32 tile's register cap: three workgroups per SM (2-d only).
          if (tile == kConvSimtSplit2Tile) {
            EXPECT_EQ(source.find("__launch_bounds__(256, 3)") != std::string::npos, shape < 2)
                << lk.desc.name;
          }
          try {
            EXPECT_GT(runtime::cuda::nvrtc_compile(source, lk.desc.name, "sm_90a", false).size(),
                      100u);
            ++compiled;
          } catch (const Error& e) {
            ADD_FAILURE() << e.what();
          }
        }
      }
    }
  }
  EXPECT_EQ(compiled, (kConvSimtTile - 1) * 9 + 3 * 3);
  set_allow_tf32(true);
  ir::Graph g;
  Builder b(g);
  ValueId y = b.conv(in(b, DType::BF16, {1, 3, 8, 8}), in(b, DType::BF16, {16, 3, 3, 3}),
                     {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1});
  EXPECT_FALSE(admits(g, y, 1, 227 * 1024));
  // The split-k f32 tile's stages (80 KiB) and a K of 4608 (36 KiB of k table) exceed the 99 KiB
  // of shared memory an sm_86 or sm_89 part allows: not admitted there, admitted on Hopper.
  set_allow_tf32(false);
  ir::Graph g2;
  Builder b2(g2);
  ValueId big = b2.conv(in(b2, DType::F32, {8, 512, 7, 7}), in(b2, DType::F32, {512, 512, 3, 3}),
                        {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1});
  EXPECT_FALSE(admits(g2, big, kConvSimtSplitTile, 99 * 1024));
  EXPECT_TRUE(admits(g2, big, kConvSimtSplitTile, 227 * 1024));
  // The two-group tile's three per SM need 3 x (40 KiB of stages + 36 KiB of k table + 1 KiB)
  // = 231 KiB here, more than an SM's 228: no launch bound, the compiler's registers.
  for (const LoweredKernel& lk : lower_conv(g2, big, kConvSimtSplit2Tile)) {
    const std::string source = render_cuda(lk.desc);
    if (source.find("conv_simt_tile<") == std::string::npos) continue;
    EXPECT_EQ(source.find("__launch_bounds__(256, 3)"), std::string::npos) << lk.desc.name;
    EXPECT_NE(source.find("__launch_bounds__(256)"), std::string::npos) << lk.desc.name;
  }
  set_allow_tf32(tf32);
}

TEST(CudaCompile, NoDriverMeansCudaUnavailable) {
  std::string why;
  // On machines with a driver this checks nothing about absence; CI's machine has none.
  if (Device::cuda(0).is_available()) GTEST_SKIP() << "a CUDA driver is present";
  EXPECT_FALSE(Device::cuda(0).is_available());
  try {
    Tensor<1>::zeros({2}, Device::cuda(0));
    ADD_FAILURE() << "expected ember::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:0 is not available"), std::string::npos) << e.what();
  }
  EXPECT_NE(Device::default_device().type(), DeviceType::Cuda);
}

}  // namespace
}  // namespace ember::jit
