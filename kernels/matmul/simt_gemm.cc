// Register-blocked tiled GEMM: 16 x 16 threads, each computing RM x RN outputs (rows ty + 16i,
// columns tx + 16j of a 16RM x 16RN block tile, so shared-memory reads broadcast or are
// consecutive and output stores coalesce), over K in steps of 16 staged through shared memory.
// R = 1 is the plain one-output-per-thread tile.
#include "kernels/matmul/simt_gemm.h"

#include "kernels/matmul/tiles.h"

namespace ember::jit {

using ir::BinaryFn;

namespace {
constexpr uint32_t kThreads = 256;
constexpr int kTile = kMatmulTile;
}  // namespace

void emit_simt_gemm(Emitter& e, const SimtGemm& gm, KernelGeometry& out) {
  const int RM = gm.block, RN = gm.block_n > 0 ? gm.block_n : gm.block;
  const int BM = kTile * RM, BN = kTile * RN;  // block tile; K advances by kTile
  const int64_t tiles_m = (gm.M + BM - 1) / BM, tiles_n = (gm.N + BN - 1) / BN;
  const int64_t tiles = gm.batch * tiles_m * tiles_n;
  int p_tiles = e.param_u("tiles", static_cast<uint32_t>(tiles));
  int p_tn = e.param_u("tiles_n", static_cast<uint32_t>(tiles_n));
  int p_tmn = e.param_u("tiles_mn", static_cast<uint32_t>(tiles_m * tiles_n));
  int pM = e.param_u("M", static_cast<uint32_t>(gm.M));
  int pN = e.param_u("N", static_cast<uint32_t>(gm.N));
  int pK = e.param_u("K", static_cast<uint32_t>(gm.K));
  int p_kt = e.param_u("ktiles", static_cast<uint32_t>((gm.K + kTile - 1) / kTile));
  const CType acc_t = gm.acc;
  // Both tiles are stored k-major (As[k][m], Bs[k][n]) so a thread's rows and columns are
  // contiguous and read as 16-byte vectors; rows padded by 4 elements (keeping that alignment)
  // spread the staging stores over banks.
  const int AS = BM + 4, BS = BN + 4;
  auto& sh = e.desc().shared;
  int sa = static_cast<int>(sh.size());
  sh.push_back({acc_t, kTile * AS});
  int sb = static_cast<int>(sh.size());
  sh.push_back({acc_t, kTile * BS});

  auto u = [&](int64_t v) { return e.const_u(static_cast<uint64_t>(v)); };
  auto add = [&](int x, int y) { return e.bin(BinaryFn::Add, x, y); };
  auto mul = [&](int x, int y) { return e.bin(BinaryFn::Mul, x, y); };
  int t = e.begin_for(SOp::ForRows, p_tiles);
  gm.begin_batch(e.bin(BinaryFn::Div, t, p_tmn));
  int rem = e.bin(BinaryFn::Rem, t, p_tmn);
  int tm = e.bin(BinaryFn::Div, rem, p_tn);
  int tn = e.bin(BinaryFn::Rem, rem, p_tn);
  int lid = e.builtin(Builtin::LocalId);
  int ty = e.bin(BinaryFn::Div, lid, u(kTile));
  int tx = e.bin(BinaryFn::Rem, lid, u(kTile));
  int m0 = mul(tm, u(BM)), n0 = mul(tn, u(BN));
  // The i-th row (or column) of the block tile a thread owns, t being its ty (or tx): runs of 4
  // contiguous elements, 64 apart (a quarter-warp's 16-byte reads then cover 32 distinct
  // banks); blocks under 4 interleave one element 16 apart.
  auto owned = [&](int t, int i, int R) {
    if (R < 4) return add(t, u(kTile * i));
    return add(mul(t, u(4)), u(static_cast<int64_t>(i / 4) * kTile * 4 + i % 4));
  };
  int one = e.const_u(1);
  std::vector<int> acc(RM * RN);
  for (int& v : acc) v = e.new_var(acc_t, e.cast(e.const_u(0), acc_t));
  // Out-of-range elements are staged as zeros (read at a clamped index: every load in bounds).
  auto load = [&](bool a_operand, int row, int rows, int col, int cols) {
    int ok =
        e.bin(BinaryFn::LogicalAnd, e.bin(BinaryFn::Lt, row, rows), e.bin(BinaryFn::Lt, col, cols));
    int r = e.umin(row, e.bin(BinaryFn::Sub, rows, one));
    int c = e.umin(col, e.bin(BinaryFn::Sub, cols, one));
    int v = a_operand ? gm.load_a(r, c) : gm.load_b(r, c);
    return e.select(ok, v, e.cast(e.const_u(0), acc_t));
  };
  auto shared_store = [&](int shared, int slot, int value) {
    Stmt st{SOp::SharedStore, value};
    st.buffer = shared;
    st.index = slot;
    e.desc().body.push_back(st);
  };
  // Each thread stages RM elements of the A tile and RN of the B tile, flat positions
  // lid + 256 s, consecutive threads along the operand's contiguous dim.
  struct Staged {
    int row, col, slot;
  };
  std::vector<Staged> sa_elems(RM), sb_elems(RN);
  auto split = [&](int s, int64_t fast) {
    int flat = add(lid, u(static_cast<int64_t>(kThreads) * s));
    return std::pair{e.bin(BinaryFn::Div, flat, u(fast)), e.bin(BinaryFn::Rem, flat, u(fast))};
  };
  for (int s = 0; s < RM; ++s) {
    auto [hi, lo] = split(s, gm.a_along_rows ? BM : kTile);  // A tile: BM x 16
    int arow = gm.a_along_rows ? lo : hi, acol = gm.a_along_rows ? hi : lo;
    sa_elems[s] = {add(m0, arow), acol, add(mul(acol, u(AS)), arow)};
  }
  for (int s = 0; s < RN; ++s) {
    auto [hi, lo] = split(s, gm.b_along_rows ? kTile : BN);  // B tile: 16 x BN
    int krow = gm.b_along_rows ? lo : hi, bcol = gm.b_along_rows ? hi : lo;
    sb_elems[s] = {krow, add(n0, bcol), add(mul(krow, u(BS)), bcol)};
  }
  auto load_tile = [&](int k0, int s, bool a_operand) {
    if (a_operand) {
      const Staged& st = sa_elems[s];
      return load(true, st.row, pM, add(k0, st.col), pK);
    }
    const Staged& st = sb_elems[s];
    return load(false, add(k0, st.row), pK, st.col, pN);
  };
  // Two stages: the next k-tile's elements wait in registers while the current one is
  // multiplied (global loads overlap the FMAs). One: each tile is loaded, then multiplied.
  // (Not for K = 0: the loads before the loop would read operands without elements.)
  const bool two_stages = gm.stages >= 2 && gm.K > 0;
  std::vector<int> a_next(RM), b_next(RN);
  for (int s = 0; s < RM && two_stages; ++s) {
    a_next[s] = e.new_var(acc_t, load_tile(e.const_u(0), s, true));
  }
  for (int s = 0; s < RN && two_stages; ++s) {
    b_next[s] = e.new_var(acc_t, load_tile(e.const_u(0), s, false));
  }
  int kt = e.begin_for(SOp::ForSeq, p_kt);
  int k0 = mul(kt, u(kTile));
  for (int s = 0; s < RM; ++s) {
    shared_store(sa, sa_elems[s].slot,
                 two_stages ? e.var(a_next[s], acc_t) : load_tile(k0, s, true));
  }
  for (int s = 0; s < RN; ++s) {
    shared_store(sb, sb_elems[s].slot,
                 two_stages ? e.var(b_next[s], acc_t) : load_tile(k0, s, false));
  }
  e.barrier();
  // (Past the last tile every element is out of range: zeros, loaded in bounds.)
  int k1 = add(k0, u(kTile));
  for (int s = 0; s < RM && two_stages; ++s) e.assign(a_next[s], load_tile(k1, s, true));
  for (int s = 0; s < RN && two_stages; ++s) e.assign(b_next[s], load_tile(k1, s, false));
  int kk = e.begin_for(SOp::ForSeq, e.const_u(kTile));
  std::vector<int> av(RM), bv(RN);
  for (int i = 0; i < RM; ++i) {
    av[i] = e.expr({XOp::SharedLoad, acc_t, sa, 0, {add(mul(kk, u(AS)), owned(ty, i, RM))}});
  }
  for (int j = 0; j < RN; ++j) {
    bv[j] = e.expr({XOp::SharedLoad, acc_t, sb, 0, {add(mul(kk, u(BS)), owned(tx, j, RN))}});
  }
  for (int i = 0; i < RM; ++i) {
    for (int j = 0; j < RN; ++j) {
      int cur = e.var(acc[i * RN + j], acc_t);
      e.assign(acc[i * RN + j],
               is_floating(acc_t) ? e.fma(av[i], bv[j], cur)
                                  : e.bin(BinaryFn::Add, cur, e.bin(BinaryFn::Mul, av[i], bv[j])));
    }
  }
  e.end();
  e.barrier();
  e.end();
  // Epilogue per owned output: the accumulator stands for the product's value there.
  for (int i = 0; i < RM; ++i) {
    for (int j = 0; j < RN; ++j) {
      gm.store(add(m0, owned(ty, i, RM)), add(n0, owned(tx, j, RN)), e.var(acc[i * RN + j], acc_t));
    }
  }
  e.end();
  out.work_items = static_cast<uint64_t>(tiles);
  out.per_row = true;
}

}  // namespace ember::jit
