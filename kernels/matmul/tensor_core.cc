// The tile templates: tensor cores (mma.sync, wgmma with or without the copy engine) and the f32
// vector tile, all CUDA; their device code is kernels/matmul/*.cuh.
#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "kernels/matmul/lowering.h"
#include "kernels/matmul/precision.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::ValueId;

// Makes an 8-warp wgmma tile read its operands through the copy engine (shape.tma) when they
// suit tensor maps (copy_engine_fits); records the two views (A, then B) the launch encodes.
// Boxes are 128 bytes wide (one swizzle row): A's the tile's rows of C, a K-major B's its
// columns, an N-major B's one k-tile of k-rows.
void add_tiled_views(MmaShape& shape, const MmaOperand& a, const MmaOperand& b, int64_t M,
                     int64_t N, int64_t K, int64_t batch, Emitter& e, KernelGeometry& out) {
  if (!copy_engine_fits(shape, a, b, M, N, K, batch)) return;
  const uint32_t es = static_cast<uint32_t>(shape.element_bytes()), box_cols = 128 / es;
  auto view = [&](const MmaOperand& o, int64_t mn, uint32_t box_rows) {
    runtime::TiledView v;
    v.binding = e.binding(o.view.stored, false);
    v.element_bytes = es;
    v.offset = static_cast<uint64_t>(o.view.offset);
    v.rows = static_cast<uint64_t>(o.kmajor ? mn : K);
    v.cols = static_cast<uint64_t>(o.kmajor ? K : mn);
    // A single row has no stride of its own (ld 0); the map still wants one, a multiple of 16
    // bytes.
    const uint64_t chunk = 16 / es;
    v.row_stride = v.rows == 1 ? (v.cols + chunk - 1) / chunk * chunk : static_cast<uint64_t>(o.ld);
    v.box_rows = box_rows;
    v.box_cols = box_cols;
    return v;
  };
  // A cluster's workgroups each copy half of A's box (wgmma_tf32.cuh).
  const uint32_t bm = static_cast<uint32_t>(shape.out_block_m() / (shape.cluster ? 2 : 1));
  const uint32_t bn = static_cast<uint32_t>(shape.out_block_n());
  out.tiled_views = {view(a, M, bm), view(b, N, b.kmajor ? bn : box_cols)};
  shape.tma = true;
  e.desc().tensor_maps = 2;
}
// EMBER_MMA_STAGED_EPILOGUE=0: tensor-core tiles store their outputs straight from the
// accumulators again (the A/B baseline of the staged epilogue). Read once: compiled plans are
// not keyed by it, so an A/B comparison runs two processes.
bool staged_epilogue_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_MMA_STAGED_EPILOGUE");
    return env == nullptr || std::string_view(env) != "0";
  }();
  return on;
}

// EMBER_MMA_CLUSTER=0: the swapped TF32 tile runs one workgroup per tile, each copying the
// whole of its A box (the A/B baseline of the clusters, wgmma_tf32.cuh). Read once, as
// EMBER_MMA_STAGED_EPILOGUE.
bool cluster_tiles_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_MMA_CLUSTER");
    return env == nullptr || std::string_view(env) != "0";
  }();
  return on;
}

// Block rows per group of a tensor-core tile's order. The wgmma tiles group 2048 rows of C (16
// block rows of 128, 8 of 256); H100, session 24: bf16 8192 (128-row blocks) 1.65 and 1.67 ms with
// 16 against 1.68 and 1.70 with 8, alternated (call 7; call 4: 1.68 against 1.74-1.75), gpt_small's
// products unchanged; TF32 8192 (256-row blocks) 3.28-3.35 with 8 against 3.35 with 4 and 3.42
// with 16 (call 4). The mma.sync tiles keep 8. EMBER_MMA_GROUP (1 to 64, read once; other values
// are ignored, as by the other tile-forcing switches) sets it for every tile, for measurements.
int64_t tile_group_rows(const MmaShape& shape) {
  static const int64_t forced = [] {
    const char* env = std::getenv("EMBER_MMA_GROUP");
    int64_t v = 0;
    if (env == nullptr || !absl::SimpleAtoi(env, &v) || v < 1 || v > 64) return int64_t{0};
    return v;
  }();
  if (forced > 0) return forced;
  return shape.wgmma ? std::max<int64_t>(1, 2048 / shape.out_block_m()) : 8;
}

// Whether a tensor-core tile's outputs fit its pipeline's shared memory as f32 rows padded by
// 8 floats (the f32 vector tile keeps its own epilogue).
bool stageable(const MmaShape& shape) {
  // The swapped TF32 tile stores straight from its accumulators (wgmma_tf32.cuh says why).
  return shape.kind != MmaShape::F32Simt && !shape.swap &&
         shape.out_block_m() * (shape.out_block_n() + 8) * 4 <= shape.shared_bytes();
}

// The epilogue of a tensor-core tile through shared memory. Straight from the accumulators, a
// warp's store covers 8 rows at 4-byte steps (8 sectors for 64 bytes of bf16) and every fused
// epilogue op is unrolled per accumulator. Staged, the warps write their accumulators to the
// pipeline's shared memory (free once the tile's k loop has ended with a barrier; rows padded
// by 8 floats: two-way bank conflicts), then every thread of the workgroup (a copy-engine
// tile's producer warpgroup too) walks the tile row by row: consecutive threads take
// consecutive columns, so a warp's store is 64 contiguous bytes, and the fused epilogue is one
// loop body. A barrier ends it: the next tile's copies overwrite the staging.
// H100, BM_matmul_gpt (copy-engine tiles): 8192 x 50304 x 768 bf16 2.32 -> 1.74 ms,
// 8192 x 3072 x 768 0.158 -> 0.115.
void store_staged(Emitter& e, const KernelPlan& kp, const MmaShape& shape, int acc_var, CType out_t,
                  const std::vector<int>& bdims, int m0, int n0, int pM, int pN) {
  auto u = [&](int64_t v) { return e.const_u(static_cast<uint64_t>(v)); };
  auto add = [&](int x, int y) { return e.bin(BinaryFn::Add, x, y); };
  auto mul = [&](int x, int y) { return e.bin(BinaryFn::Mul, x, y); };
  const int64_t BM = shape.out_block_m(), BN = shape.out_block_n(), stride = BN + 8;
  const int64_t threads = shape.threads() + (shape.tma ? 128 : 0), total = BM * BN;
  auto& sh = e.desc().shared;
  const int staging = static_cast<int>(sh.size());
  sh.push_back({CType::Float, kDynamicShared});
  int lid = e.builtin(Builtin::LocalId);
  int lane = e.bin(BinaryFn::BitAnd, lid, u(31));
  int warp = e.bin(BinaryFn::Div, lid, u(32));
  // Accumulator (mi, ni, c) of a warp: row g + 8 (c / 2) and column 2 t + c % 2 of its
  // fragment (mi, ni) (the mma.sync C layout, which wgmma's matches), relative to the tile
  // (transposed when the tile computes C^T: MmaShape::swap).
  int row0 = add(mul(e.bin(BinaryFn::Div, warp, u(shape.warps_n)), u(shape.frags_m * 16)),
                 e.bin(BinaryFn::Div, lane, u(4)));
  int col0 = add(mul(e.bin(BinaryFn::Rem, warp, u(shape.warps_n)), u(shape.frags_n * 8)),
                 mul(e.bin(BinaryFn::Rem, lane, u(4)), u(2)));
  if (shape.tma) e.begin_if(e.bin(BinaryFn::Lt, lid, u(shape.threads())));
  for (int mi = 0; mi < shape.frags_m; ++mi) {
    for (int ni = 0; ni < shape.frags_n; ++ni) {
      for (int c = 0; c < 4; ++c) {
        int row = add(row0, u(mi * 16 + (c / 2) * 8)), col = add(col0, u(ni * 8 + c % 2));
        int i = (mi * shape.frags_n + ni) * 4 + c;
        Stmt st{SOp::SharedStore, e.expr({XOp::ArrayLoad, CType::Float, acc_var, 0, {u(i)}})};
        st.buffer = staging;
        st.index = shape.swap ? add(mul(col, u(stride)), row) : add(mul(row, u(stride)), col);
        e.desc().body.push_back(st);
      }
    }
  }
  if (shape.tma) e.end();
  e.barrier();
  int step = e.begin_for(SOp::ForSeq, u((total + threads - 1) / threads));
  int idx = add(mul(step, u(threads)), lid);
  e.begin_if(e.bin(BinaryFn::Lt, idx, u(total)));
  int row = e.bin(BinaryFn::Div, idx, u(BN)), col = e.bin(BinaryFn::Rem, idx, u(BN));
  int v = e.expr({XOp::SharedLoad, CType::Float, staging, 0, {add(mul(row, u(stride)), col)}});
  store_matmul_outputs(e, kp, e.cast(v, out_t), bdims, add(m0, row), add(n0, col), pM, pN);
  e.end();
  e.end();
  e.barrier();
}

}  // namespace

void lower_matmul_tile(const ir::Graph& g, Emitter& e, const KernelPlan& kp, TileOperands ops,
                       KernelGeometry& out) {
  ValueId mm = kp.anchor;
  ValueId a = g.node(mm).inputs[0], b = g.node(mm).inputs[1];
  DType dt = g.type(mm).dtype;
  MmaShape& shape = ops.shape;
  const MmaOperand* oa = &ops.a;
  const MmaOperand* ob = &ops.b;
  const bool simt = shape.kind == MmaShape::F32Simt;
  const Shape& os = kp.shape;
  const Shape& as = g.type(a).shape;
  const Shape& bs = g.type(b).shape;
  const int r = os.rank();

  int64_t M = os[r - 2], N = os[r - 1], K = as[r - 1];
  Shape batch(std::vector<int64_t>(os.dims.begin(), os.dims.end() - 2));
  const int64_t BM = shape.out_block_m(), BN = shape.out_block_n();
  shape.cluster = shape.swap && cluster_tiles_enabled();
  // A cluster's two workgroups take the tiles of a pair of block columns in one block row.
  const int64_t cl = shape.cluster ? 2 : 1;
  if (shape.wgmma) add_tiled_views(shape, *oa, *ob, M, N, K, batch.numel(), e, out);
  int64_t tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  if (cl > 1) tiles_n = (tiles_n + 1) / 2;  // pairs of columns (the last one may be empty)
  int64_t tiles = batch.numel() * tiles_m * tiles_n * cl;
  auto u = [&](int64_t v) { return e.const_u(static_cast<uint64_t>(v)); };
  auto add = [&](int x, int y) { return e.bin(BinaryFn::Add, x, y); };
  auto mul = [&](int x, int y) { return e.bin(BinaryFn::Mul, x, y); };
  auto div = [&](int x, int y) { return e.bin(BinaryFn::Div, x, y); };
  auto rem = [&](int x, int y) { return e.bin(BinaryFn::Rem, x, y); };
  int p_tiles = e.param_u("tiles", static_cast<uint32_t>(tiles));
  int p_tm = e.param_u("tiles_m", static_cast<uint32_t>(tiles_m));
  int p_tn = e.param_u("tiles_n", static_cast<uint32_t>(tiles_n));
  int p_tmn = e.param_u("tiles_mn", static_cast<uint32_t>(tiles_m * tiles_n));
  int pM = e.param_u("M", static_cast<uint32_t>(M));
  int pN = e.param_u("N", static_cast<uint32_t>(N));
  int pK = e.param_u("K", static_cast<uint32_t>(K));
  const int t_loop = e.begin_for(SOp::ForRows, p_tiles);
  const int t = cl > 1 ? div(t_loop, u(cl)) : t_loop;  // the tile, or (clusters) the pair
  int bi = div(t, p_tmn);
  // Tensor-core tiles run in groups of block rows (tile_group_rows), column by column, so that
  // the operand panels the resident workgroups read stay in L2. The vector tile runs row by row:
  // its register allocation came out worse with the grouping's arithmetic (H100 4096^3 f32: 3.23 ms
  // against 3.17, scripts/kernel-lab, session 8).
  const int64_t kGroup = tile_group_rows(shape);
  int in_batch = rem(t, p_tmn);
  int tm, tn;
  if (simt) {
    tm = div(in_batch, p_tn);
    tn = rem(in_batch, p_tn);
  } else {
    int group_width = mul(u(kGroup), p_tn);
    int first_m = mul(div(in_batch, group_width), u(kGroup));
    int group_rows = e.umin(e.bin(BinaryFn::Sub, p_tm, first_m), u(kGroup));
    int in_group = rem(in_batch, group_width);
    tm = add(first_m, rem(in_group, group_rows));
    tn = div(in_group, group_rows);
  }
  if (cl > 1) tn = add(mul(tn, u(cl)), rem(t_loop, u(cl)));
  int m0 = mul(tm, u(BM)), n0 = mul(tn, u(BN));
  Index batch_idx{batch, std::vector<int>(batch.rank(), -1), bi};
  std::vector<int> bdims;
  for (int d = 0; d < batch.rank(); ++d) bdims.push_back(e.dim(batch_idx, d));
  // Element offset of the operand's matrix for this tile's batch index.
  auto matrix_offset = [&](const MmaOperand& o, const Shape& s, const std::string& key) {
    int off = e.param_u(key + ":off", static_cast<uint32_t>(o.view.offset));
    for (int d = 0; d < r - 2; ++d) {
      if (s[d] == 1) continue;
      int st = e.param_u(absl::StrCat(key, ":st", d), static_cast<uint32_t>(o.view.strides[d]));
      off = add(off, mul(bdims[d], st));
    }
    return off;
  };
  Stmt decl{SOp::DeclArray};
  decl.var = e.desc().num_vars++;
  decl.type = CType::Float;
  decl.code = shape.accumulators();
  e.desc().body.push_back(decl);
  Stmt tile{SOp::MmaTile};
  tile.var = decl.var;
  tile.code = shape.pack();
  tile.buffer = e.binding(oa->view.stored, false);
  tile.buffer2 = e.binding(ob->view.stored, false);
  tile.args = {matrix_offset(*oa, as, "a"),
               e.param_u("a:ld", static_cast<uint32_t>(oa->ld)),
               matrix_offset(*ob, bs, "b"),
               e.param_u("b:ld", static_cast<uint32_t>(ob->ld)),
               pM,
               pN,
               pK,
               m0,
               n0};
  e.desc().body.push_back(tile);
  e.desc().dynamic_shared_bytes = static_cast<uint32_t>(shape.shared_bytes());
  e.desc().cluster_size = static_cast<uint32_t>(cl);
  // A copy-engine tile adds its producer warpgroup; one workgroup per SM either way.
  e.desc().workgroup_size = static_cast<uint32_t>(shape.threads() + (shape.tma ? 128 : 0));
  // One workgroup per SM: its registers (the vector tile's 128 accumulators per thread, or a
  // producer warpgroup's share) are the budget. The narrow vector tile's 64 fit two per SM.
  if (simt || shape.tma) e.desc().min_workgroups_per_sm = simt && shape.block_n() == 128 ? 2 : 1;
  // Accumulator (mi, ni, c) of a thread holds output row g + 8 (c / 2) and column 2 t + c % 2
  // of fragment (mi, ni) of its warp's tile (the mma.sync C layout).
  int lid = e.builtin(Builtin::LocalId);
  int lane = e.bin(BinaryFn::BitAnd, lid, u(31));
  int warp = div(lid, u(32));
  // (Of C^T where the tile computes C^T: MmaShape::swap.)
  int wm = mul(div(warp, u(shape.warps_n)), u(shape.frags_m * 16));
  int wn = mul(rem(warp, u(shape.warps_n)), u(shape.frags_n * 8));
  int g_row = div(lane, u(4));
  int t_col = mul(rem(lane, u(4)), u(2));
  CType out_t = compute_type(dt);
  if (simt) {
    // Accumulator CJ i + j (CJ = BN / 16 columns a thread): row 16 warp + 8 (lane / 16) + i,
    // column 64 (j / 4) + 4 (lane % 16) + j % 4.
    const int cj = shape.block_n() / 16;
    int rows = add(m0, add(mul(warp, u(16)), mul(div(lane, u(16)), u(8))));
    int cols = add(n0, mul(rem(lane, u(16)), u(4)));
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < cj; ++j) {
        int accv = e.expr({XOp::ArrayLoad, CType::Float, decl.var, 0, {u(i * cj + j)}});
        store_matmul_outputs(e, kp, e.cast(accv, out_t), bdims, add(rows, u(i)),
                             add(cols, u(64 * (j / 4) + j % 4)), pM, pN);
      }
    }
  }
  if (staged_epilogue_enabled() && stageable(shape)) {
    store_staged(e, kp, shape, decl.var, out_t, bdims, m0, n0, pM, pN);
    e.end();
    out.work_items = static_cast<uint64_t>(tiles);
    out.per_row = true;
    return;
  }
  // The producer warpgroup holds no accumulators.
  if (shape.tma) e.begin_if(e.bin(BinaryFn::Lt, lid, u(shape.threads())));
  for (int mi = 0; mi < shape.frags_m && !simt; ++mi) {
    for (int ni = 0; ni < shape.frags_n; ++ni) {
      for (int c = 0; c < 4; ++c) {
        int i = (mi * shape.frags_n + ni) * 4 + c;
        int row = add(wm, add(g_row, u(mi * 16 + (c / 2) * 8)));
        int col = add(wn, add(t_col, u(ni * 8 + c % 2)));
        int m = add(m0, shape.swap ? col : row), n = add(n0, shape.swap ? row : col);
        int accv = e.expr({XOp::ArrayLoad, CType::Float, decl.var, 0, {u(i)}});
        store_matmul_outputs(e, kp, e.cast(accv, out_t), bdims, m, n, pM, pN);
      }
    }
  }
  if (shape.tma) e.end();
  e.end();
  out.work_items = static_cast<uint64_t>(tiles);
  out.per_row = true;
}

}  // namespace ember::jit
