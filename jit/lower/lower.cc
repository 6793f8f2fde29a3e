// The kernel templates: pointwise, row (reductions with prologue and epilogue), tiled matmul,
// rank sort and gather-style scatter-add. Each evaluates graph values through the Emitter, so
// any elementwise/view expression fuses into any of them.
#include "jit/lower/lower.h"

#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "jit/lower/in_place.h"
#include "jit/lower/matmul_precision.h"
#include "jit/tune/pointwise_tuning.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::OpKind;
using ir::ReduceFn;
using ir::UnaryFn;
using ir::ValueId;

constexpr uint32_t kThreads = 256;
constexpr int kTile = 16;  // matmul: 16 x 16 threads; K advances 16 per shared-memory stage
// Matmuls use the largest per-thread block (8, 4, 2 or 1 squared) that leaves at least this many
// workgroups: two per SM on a 132-SM GPU.
constexpr int64_t kMatmulMinTiles = 256;
// Rows up to this many elements per thread are kept in registers across a row kernel's passes
// (read from memory once); 16 x 256 threads covers rows of 4096, the common hidden sizes.
constexpr int kRowCacheSteps = 16;

std::string kernel_name(const ir::Graph& g, const KernelPlan& kp) {
  std::string name = kernel_kind_name(kp.kind);
  int parts = 0;
  for (ValueId v : kp.outputs) {
    if (parts++ == 3) break;
    const ir::Node& n = g.node(v);
    absl::StrAppend(&name, "_", ir::op_name(n.op));
    if (n.op == OpKind::Unary)
      absl::StrAppend(&name, "_", ir::unary_name(n.get<ir::UnaryAttrs>().fn));
    if (n.op == OpKind::Binary)
      absl::StrAppend(&name, "_", ir::binary_name(n.get<ir::BinaryAttrs>().fn));
    if (n.op == OpKind::Reduce)
      absl::StrAppend(&name, "_", ir::reduce_name(n.get<ir::ReduceAttrs>().fn));
  }
  return name;
}

}  // namespace

int matmul_block(int64_t m, int64_t n, int64_t batch) {
  // The largest per-thread block that still leaves enough workgroups to fill a large GPU.
  for (int r : {8, 4, 2}) {
    int64_t tiles =
        batch * ((m + kTile * r - 1) / (kTile * r)) * ((n + kTile * r - 1) / (kTile * r));
    if (tiles >= kMatmulMinTiles) return r;
  }
  return 1;
}

int mma_tile_heuristic(int64_t m, int64_t n, int64_t batch, bool wgmma) {
  // H100 (autotune sweep, bf16 and TF32 at 4096 and 8192): 128 x 256 with 128-byte k-rows
  // wins by 10-18% over the 64-byte ones; 64 x 128 wins at 1024. With wgmma fed by the copy
  // engine (bf16, session 8): 128 x 256 1.60 ms at 8192, 128 x 128 2.07 (5 stages) and 2.33 (3
  // stages), 192 x 256 (cp.async: no room for a producer warpgroup's registers) 2.27.
  constexpr int64_t kMinTiles = 128;
  constexpr int kWgmmaIds[] = {10, 11}, kSyncIds[] = {6, 1};
  for (int id : wgmma ? kWgmmaIds : kSyncIds) {
    const MmaTile& t = kMmaTiles[id - 1];
    int64_t bm = t.block_m(), bn = t.block_n();
    if (batch * ((m + bm - 1) / bm) * ((n + bn - 1) / bn) >= kMinTiles) return id;
  }
  // Few tiles: on Hopper still a 128 x 128 wgmma tile (bf16 1024: 0.014 ms against 0.018 for
  // mma.sync 64 x 128, session 8's autotune run), else the small mma.sync tile.
  return wgmma ? 11 : 5;
}

int mma_sync_tile(int id) {
  const MmaTile& t = kMmaTiles[id - 1];
  if (!t.wgmma) return id;
  return t.block_n() == 256 ? 6 : 7;  // the same block tile with 128-byte k-rows
}

int row_cache_steps(int64_t row_length, int workgroup) {
  // Rounded up to a power of two so that nearby lengths share a kernel.
  int steps = 1;
  while (static_cast<int64_t>(steps) * workgroup < row_length) steps *= 2;
  return steps <= kRowCacheSteps ? steps : 0;
}

namespace {

CType accumulator_type(ReduceFn fn, DType t) {
  CType c = compute_type(t);
  if (c == CType::Bool) return CType::Uint;
  (void)fn;
  return c;
}

int identity(Emitter& e, ReduceFn fn, CType t) {
  bool is_max = fn == ReduceFn::Max || fn == ReduceFn::ArgMax;
  switch (fn) {
    case ReduceFn::Sum:
      return e.cast(e.const_u(0), t);
    case ReduceFn::Prod:
      return e.cast(e.const_u(1), t);
    default:
      break;
  }
  switch (t) {
    case CType::Float:
    case CType::Double:
      return e.const_f(is_max ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity(),
                       t);
    case CType::Int:
      return e.const_i(
          is_max ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max(), t);
    case CType::Int64:
      return e.const_i(
          is_max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max(), t);
    default:
      return e.const_u(is_max ? 0 : 0xffffffffu);
  }
}

bool is_floating(CType t) { return t == CType::Float || t == CType::Double; }

// Whether x should replace the running extreme acc (max/min with NaN winning, as the CPU does).
int better(Emitter& e, bool is_max, int x, int acc) {
  int c = e.bin(is_max ? BinaryFn::Gt : BinaryFn::Lt, x, acc);
  if (!is_floating(e.type_of(x))) return c;
  int x_nan = e.un(UnaryFn::IsNan, x);
  int acc_nan = e.un(UnaryFn::IsNan, acc);
  return e.bin(BinaryFn::LogicalOr, c,
               e.bin(BinaryFn::LogicalAnd, x_nan, e.un(UnaryFn::LogicalNot, acc_nan)));
}

int combine(Emitter& e, ReduceFn fn, int acc, int x) {
  switch (fn) {
    case ReduceFn::Sum:
      return e.bin(BinaryFn::Add, acc, x);
    case ReduceFn::Prod:
      return e.bin(BinaryFn::Mul, acc, x);
    case ReduceFn::Max:  // NaN wins, as in the binary op (arg-reductions use better())
      return e.bin(BinaryFn::Max, acc, x);
    default:
      return e.bin(BinaryFn::Min, acc, x);
  }
}

// Four elements per access (jit::vectorizable).
void lower_pointwise_vec4(const ir::Graph& g, Emitter& e, const KernelPlan& kp, int unroll,
                          LoweredKernel& out) {
  int64_t vectors = kp.shape.numel() / 4;
  int n = e.param_u("out:vectors", static_cast<uint32_t>(vectors));
  int t = e.begin_for(SOp::ForGrid, n, unroll);
  e.set_home(-1, t);
  int four = e.const_u(4);
  int base = e.bin(BinaryFn::Mul, t, four);
  std::vector<std::vector<int>> lanes(kp.outputs.size());
  for (int c = 0; c < 4; ++c) {
    int lin = c == 0 ? base : e.bin(BinaryFn::Add, base, e.const_u(c));
    for (size_t i = 0; i < kp.outputs.size(); ++i) {
      ValueId o = kp.outputs[i];
      Index idx{kp.shape, {}, lin, t, c};
      lanes[i].push_back(e.cast(e.value(o, idx), compute_type(g.type(o).dtype)));
    }
  }
  for (size_t i = 0; i < kp.outputs.size(); ++i) {
    ValueId o = kp.outputs[i];
    e.use_vec4(e.binding(o, true));
    int vec = e.expr({XOp::MakeVec, compute_type(g.type(o).dtype), 0, 0, lanes[i]});
    e.store(o, t, vec);
  }
  e.end();
  out.work_items = static_cast<uint64_t>((vectors + unroll - 1) / unroll);
}

void lower_pointwise(const ir::Graph& g, Emitter& e, const KernelPlan& kp, LoweredKernel& out) {
  const PointwiseConfig c = pointwise_config(kp.pointwise);
  e.desc().workgroup_size = static_cast<uint32_t>(c.threads);
  if (c.vector == 4 && vectorizable(g, kp)) return lower_pointwise_vec4(g, e, kp, c.unroll, out);
  int n = e.numel_param(kp.shape, "out");
  int lin = e.begin_for(SOp::ForGrid, n, c.unroll);
  e.set_home(lin, -1);
  // Every output is computed before any is stored: an output may take the buffer of an input
  // that dies here (in_place_donors), and a store must not land before that input's last load.
  std::vector<int> values;
  for (ValueId o : kp.outputs) values.push_back(e.value(o, Index{kp.shape, {}, lin}));
  for (size_t i = 0; i < kp.outputs.size(); ++i) e.store(kp.outputs[i], lin, values[i]);
  e.end();
  out.work_items = static_cast<uint64_t>((kp.shape.numel() + c.unroll - 1) / c.unroll);
}

void lower_row(const ir::Graph& g, Emitter& e, const KernelPlan& kp, LoweredKernel& out) {
  Shape reduced = kp.shape;
  reduced[kp.axis] = 1;
  int steps = row_cache_steps(kp.shape[kp.axis], static_cast<int>(e.desc().workgroup_size));
  if (steps > 0) e.enable_row_cache(steps);
  int rows = e.numel_param(reduced, "rows");
  int len = e.size_param(kp.shape, kp.axis, "row");
  int row = e.begin_for(SOp::ForRows, rows);
  Index row_idx{reduced, std::vector<int>(reduced.rank(), -1), row};
  for (int d = 0; d < reduced.rank(); ++d) row_idx.dims[d] = e.dim(row_idx, d);
  auto full_index = [&](int i) {
    Index f{kp.shape, row_idx.dims, -1};
    f.dims[kp.axis] = i;
    f.row_lane = true;
    return f;
  };
  for (ValueId r : kp.reductions) {
    ReduceFn fn = g.node(r).get<ir::ReduceAttrs>().fn;
    ValueId in = g.node(r).inputs[0];
    bool arg = fn == ReduceFn::ArgMax || fn == ReduceFn::ArgMin;
    ReduceFn value_fn = fn == ReduceFn::ArgMax   ? ReduceFn::Max
                        : fn == ReduceFn::ArgMin ? ReduceFn::Min
                                                 : fn;
    CType acc_t = accumulator_type(value_fn, g.type(in).dtype);
    int acc = e.new_var(acc_t, identity(e, value_fn, acc_t));
    int acc_i = arg ? e.new_var(CType::Uint, e.const_u(0)) : -1;
    int i = e.begin_for(SOp::ForLanes, len);
    int x = e.cast(e.value(in, full_index(i)), acc_t);
    int a = e.var(acc, acc_t);
    if (arg) {
      // Lanes visit indices in increasing order, so a strict comparison keeps the first extreme.
      int take = better(e, fn == ReduceFn::ArgMax, x, a);
      e.assign(acc_i, e.select(take, i, e.var(acc_i, CType::Uint)));
      e.assign(acc, e.select(take, x, a));
    } else {
      e.assign(acc, combine(e, fn, a, x));
    }
    e.end();
    Stmt s{arg ? SOp::ArgReduce : SOp::Reduce};
    s.var = acc;
    s.var2 = acc_i;
    s.fn = value_fn;
    s.type = acc_t;
    e.desc().body.push_back(s);
    CType out_t = compute_type(g.type(r).dtype);
    int result = arg ? e.cast(e.var(acc_i, CType::Uint), out_t) : e.cast(e.var(acc, acc_t), out_t);
    e.provide(r, result);
  }
  std::vector<ValueId> full_outputs, row_outputs;
  for (ValueId o : kp.outputs)
    (g.type(o).shape == kp.shape ? full_outputs : row_outputs).push_back(o);
  // A row kernel whose outputs are all reductions may have kp.shape == reduced (axis of size 1).
  if (kp.shape == reduced) {
    row_outputs.insert(row_outputs.end(), full_outputs.begin(), full_outputs.end());
    full_outputs.clear();
  }
  if (!full_outputs.empty()) {
    int i = e.begin_for(SOp::ForLanes, len);
    Index f = full_index(i);
    int lin = e.linear(f);
    for (ValueId o : full_outputs) e.store(o, lin, e.value(o, f));
    e.end();
  }
  if (!row_outputs.empty()) {
    e.begin_if(e.bin(BinaryFn::Eq, e.builtin(Builtin::LocalId), e.const_u(0)));
    for (ValueId o : row_outputs) e.store(o, row, e.value(o, row_idx));
    e.end();
  }
  e.end();
  out.work_items = static_cast<uint64_t>(reduced.numel());
  out.per_row = true;
}

// Whether the operand's columns (its last dim) are not the last dim of the buffer it is read
// from: a transposed view (backward's h^T @ g). Staging then walks the rows with consecutive
// threads so that loads stay coalesced.
bool reads_transposed(const ir::Graph& g, const Plan& plan, ValueId v) {
  int d = g.type(v).shape.rank() - 1;
  while (!plan.stored[v]) {
    const ir::Node& n = g.node(v);
    if (n.op == OpKind::Permute) {
      d = n.get<ir::PermuteAttrs>().perm[d];
    } else if (n.op != OpKind::Cast && n.op != OpKind::Expand && n.op != OpKind::Slice &&
               n.op != OpKind::Flip && n.op != OpKind::Unary) {
      return false;  // reshapes and computed values: assume the usual layout
    }
    v = n.inputs[0];
  }
  return d != g.type(v).shape.rank() - 1;
}

// The epilogue at output (batch dims, m, n): the matmul's value there is `value` (an
// accumulator); every output of the kernel is stored when (m, n) lies inside M x N.
void store_matmul_outputs(Emitter& e, const KernelPlan& kp, int value,
                          const std::vector<int>& bdims, int m, int n, int pM, int pN) {
  e.provide(kp.anchor, value);
  e.begin_if(e.bin(BinaryFn::LogicalAnd, e.bin(BinaryFn::Lt, m, pM), e.bin(BinaryFn::Lt, n, pN)));
  const int r = kp.shape.rank();
  Index oidx{kp.shape, std::vector<int>(r, -1), -1};
  for (int d = 0; d < r - 2; ++d) oidx.dims[d] = bdims[d];
  oidx.dims[r - 2] = m;
  oidx.dims[r - 1] = n;
  int lin = e.linear(oidx);
  for (ValueId o : kp.outputs) e.store(o, lin, e.value(o, oidx));
  e.end();
}

// Register-blocked tiled matmul: 16 x 16 threads, each computing R x R outputs (rows ty + 16i,
// columns tx + 16j of a 16R x 16R block tile, so shared-memory reads broadcast or are
// consecutive and output stores coalesce), over K in steps of 16 staged through shared memory.
// R = 1 is the plain one-output-per-thread tile.
void lower_matmul(const ir::Graph& g, const Plan& plan, Emitter& e, const KernelPlan& kp,
                  LoweredKernel& out) {
  ValueId mm = kp.anchor;
  ValueId a = g.node(mm).inputs[0], b = g.node(mm).inputs[1];
  const Shape& os = kp.shape;
  const Shape& as = g.type(a).shape;
  const Shape& bs = g.type(b).shape;
  int r = os.rank();
  int64_t M = os[r - 2], N = os[r - 1], K = as[r - 1];
  Shape batch(std::vector<int64_t>(os.dims.begin(), os.dims.end() - 2));
  // (The vector tile's operands did not suit it: the largest block of this template instead.)
  const int R = kp.block == kVectorTileBlock ? 8
                : kp.block > 0               ? kp.block
                                             : matmul_block(M, N, batch.numel());
  const int BM = kTile * R, BN = kTile * R;  // block tile; K advances by kTile
  int64_t tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  int64_t tiles = batch.numel() * tiles_m * tiles_n;

  int p_tiles = e.param_u("tiles", static_cast<uint32_t>(tiles));
  int p_tn = e.param_u("tiles_n", static_cast<uint32_t>(tiles_n));
  int p_tmn = e.param_u("tiles_mn", static_cast<uint32_t>(tiles_m * tiles_n));
  int pM = e.param_u("M", static_cast<uint32_t>(M));
  int pN = e.param_u("N", static_cast<uint32_t>(N));
  int pK = e.param_u("K", static_cast<uint32_t>(K));
  int p_kt = e.param_u("ktiles", static_cast<uint32_t>((K + kTile - 1) / kTile));
  CType acc_t = compute_type(g.type(mm).dtype);
  // Both tiles are stored k-major (As[k][m], Bs[k][n]) so a thread's rows and columns are
  // contiguous and read as 16-byte vectors; rows padded by 4 elements (keeping that alignment)
  // spread the staging stores over banks.
  const int AS = BM + 4, BS = BN + 4;
  auto& sh = e.desc().shared;
  int sa = static_cast<int>(sh.size());
  sh.push_back({acc_t, kTile * AS});
  int sb = static_cast<int>(sh.size());
  sh.push_back({acc_t, kTile * BS});
  const bool a_t = reads_transposed(g, plan, a), b_t = reads_transposed(g, plan, b);

  auto u = [&](int64_t v) { return e.const_u(static_cast<uint64_t>(v)); };
  auto add = [&](int x, int y) { return e.bin(BinaryFn::Add, x, y); };
  auto mul = [&](int x, int y) { return e.bin(BinaryFn::Mul, x, y); };
  int t = e.begin_for(SOp::ForRows, p_tiles);
  int bi = e.bin(BinaryFn::Div, t, p_tmn);
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
  auto owned = [&](int t, int i) {
    if (R < 4) return add(t, u(kTile * i));
    return add(mul(t, u(4)), u(static_cast<int64_t>(i / 4) * kTile * 4 + i % 4));
  };
  Index batch_idx{batch, std::vector<int>(batch.rank(), -1), bi};
  std::vector<int> bdims;
  for (int d = 0; d < batch.rank(); ++d) bdims.push_back(e.dim(batch_idx, d));
  auto operand_index = [&](const Shape& s, int row, int col) {
    Index idx{s, std::vector<int>(s.rank(), -1), -1};
    for (int d = 0; d < r - 2; ++d) idx.dims[d] = s[d] == 1 ? e.const_u(0) : bdims[d];
    idx.dims[r - 2] = row;
    idx.dims[r - 1] = col;
    return idx;
  };
  int one = e.const_u(1);
  std::vector<int> acc(R * R);
  for (int& v : acc) v = e.new_var(acc_t, e.cast(e.const_u(0), acc_t));
  // Out-of-range elements are staged as zeros (read at a clamped index: every load in bounds).
  auto load = [&](ValueId operand, const Shape& s, int row, int rows, int col, int cols) {
    int ok =
        e.bin(BinaryFn::LogicalAnd, e.bin(BinaryFn::Lt, row, rows), e.bin(BinaryFn::Lt, col, cols));
    int v = e.value(operand, operand_index(s, e.umin(row, e.bin(BinaryFn::Sub, rows, one)),
                                           e.umin(col, e.bin(BinaryFn::Sub, cols, one))));
    return e.select(ok, e.cast(v, acc_t), e.cast(e.const_u(0), acc_t));
  };
  auto shared_store = [&](int shared, int slot, int value) {
    Stmt st{SOp::SharedStore, value};
    st.buffer = shared;
    st.index = slot;
    e.desc().body.push_back(st);
  };
  // Each thread stages R elements of each tile, flat positions lid + 256 s, consecutive threads
  // along the operand's contiguous dim. The next k-tile's elements are loaded into registers
  // before the current tile is multiplied, so that global loads overlap the FMAs.
  struct Staged {
    int a_row, a_col, a_slot, b_row, b_col, b_slot;
  };
  std::vector<Staged> staged(R);
  for (int s = 0; s < R; ++s) {
    int flat = add(lid, u(static_cast<int64_t>(kThreads) * s));
    auto split = [&](int64_t fast) {
      return std::pair{e.bin(BinaryFn::Div, flat, u(fast)), e.bin(BinaryFn::Rem, flat, u(fast))};
    };
    auto [a_hi, a_lo] = split(a_t ? BM : kTile);  // A tile: BM x 16
    int arow = a_t ? a_lo : a_hi, acol = a_t ? a_hi : a_lo;
    auto [b_hi, b_lo] = split(b_t ? kTile : BN);  // B tile: 16 x BN
    int krow = b_t ? b_lo : b_hi, bcol = b_t ? b_hi : b_lo;
    staged[s] = {add(m0, arow), acol,          add(mul(acol, u(AS)), arow),
                 krow,          add(n0, bcol), add(mul(krow, u(BS)), bcol)};
  }
  auto load_tile = [&](int k0, int s, bool a_operand) {
    const Staged& st = staged[s];
    return a_operand ? load(a, as, st.a_row, pM, add(k0, st.a_col), pK)
                     : load(b, bs, add(k0, st.b_row), pK, st.b_col, pN);
  };
  // Two stages: the next k-tile's elements wait in registers while the current one is
  // multiplied (global loads overlap the FMAs). One: each tile is loaded, then multiplied.
  // (Not for K = 0: the loads before the loop would read operands without elements.)
  const bool two_stages = kp.stages >= 2 && K > 0;
  std::vector<int> a_next(R), b_next(R);
  for (int s = 0; s < R && two_stages; ++s) {
    a_next[s] = e.new_var(acc_t, load_tile(e.const_u(0), s, true));
    b_next[s] = e.new_var(acc_t, load_tile(e.const_u(0), s, false));
  }
  int kt = e.begin_for(SOp::ForSeq, p_kt);
  int k0 = mul(kt, u(kTile));
  for (int s = 0; s < R; ++s) {
    shared_store(sa, staged[s].a_slot,
                 two_stages ? e.var(a_next[s], acc_t) : load_tile(k0, s, true));
    shared_store(sb, staged[s].b_slot,
                 two_stages ? e.var(b_next[s], acc_t) : load_tile(k0, s, false));
  }
  e.barrier();
  // (Past the last tile every element is out of range: zeros, loaded in bounds.)
  int k1 = add(k0, u(kTile));
  for (int s = 0; s < R && two_stages; ++s) {
    e.assign(a_next[s], load_tile(k1, s, true));
    e.assign(b_next[s], load_tile(k1, s, false));
  }
  int kk = e.begin_for(SOp::ForSeq, e.const_u(kTile));
  std::vector<int> av(R), bv(R);
  for (int i = 0; i < R; ++i) {
    av[i] = e.expr({XOp::SharedLoad, acc_t, sa, 0, {add(mul(kk, u(AS)), owned(ty, i))}});
    bv[i] = e.expr({XOp::SharedLoad, acc_t, sb, 0, {add(mul(kk, u(BS)), owned(tx, i))}});
  }
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < R; ++j) {
      int cur = e.var(acc[i * R + j], acc_t);
      e.assign(acc[i * R + j], is_floating(acc_t)
                                   ? e.fma(av[i], bv[j], cur)
                                   : e.bin(BinaryFn::Add, cur, e.bin(BinaryFn::Mul, av[i], bv[j])));
    }
  }
  e.end();
  e.barrier();
  e.end();
  // Epilogue per owned output: the accumulator stands for the matmul's value there.
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < R; ++j) {
      int m = add(m0, owned(ty, i)), n = add(n0, owned(tx, j));
      int value = e.cast(e.var(acc[i * R + j], acc_t), compute_type(g.type(mm).dtype));
      store_matmul_outputs(e, kp, value, bdims, m, n, pM, pN);
    }
  }
  e.end();
  out.work_items = static_cast<uint64_t>(tiles);
  out.per_row = true;
}

// A matmul operand read straight from memory: a stored value, or permutes, broadcasts and
// slices of one, as an element offset and strides over the operand's own dims.
struct StridedOperand {
  ValueId stored;
  int64_t offset;
  std::vector<int64_t> strides;
};

std::optional<StridedOperand> strided_operand(const ir::Graph& g, const Plan& plan,
                                              const Emitter::LayoutFn& layout, ValueId v) {
  if (plan.stored[v]) {
    const runtime::Array& a = layout(v);
    return StridedOperand{v, a.offset, a.strides};
  }
  const ir::Node& n = g.node(v);
  if (n.op != OpKind::Permute && n.op != OpKind::Expand && n.op != OpKind::Slice)
    return std::nullopt;
  std::optional<StridedOperand> in = strided_operand(g, plan, layout, n.inputs[0]);
  if (!in) return in;
  if (n.op == OpKind::Slice) {  // a window (x.narrow(...) of weights, say) moves the start
    const auto& attrs = n.get<ir::SliceAttrs>();
    for (size_t d = 0; d < in->strides.size(); ++d) {
      in->offset += attrs.starts[d] * in->strides[d];
      in->strides[d] *= attrs.steps[d];
    }
    return in;
  }
  const Shape& is = g.type(n.inputs[0]).shape;
  const Shape& os = g.type(v).shape;
  std::vector<int64_t> strides(os.rank());
  for (int d = 0; d < os.rank(); ++d) {
    if (n.op == OpKind::Permute) {
      strides[d] = in->strides[n.get<ir::PermuteAttrs>().perm[d]];
    } else {
      strides[d] = is[d] == 1 && os[d] != 1 ? 0 : in->strides[d];
    }
  }
  in->strides = std::move(strides);
  return in;
}

// How the tensor-core tile reads one operand: which of its two matrix dims is contiguous and
// the other's stride. Copies move 16-byte chunks, so offsets and strides must be multiples of
// a chunk's elements.
struct MmaOperand {
  StridedOperand view;
  bool kmajor;
  int64_t ld;
};

std::optional<MmaOperand> mma_operand(const Shape& s, StridedOperand v, int k_dim, int mn_dim,
                                      int64_t chunk) {
  MmaOperand o{std::move(v), false, 0};
  const std::vector<int64_t>& st = o.view.strides;
  int other;
  if (st[k_dim] == 1 || s[k_dim] == 1) {
    o.kmajor = true;
    other = mn_dim;
  } else if (st[mn_dim] == 1 || s[mn_dim] == 1) {
    other = k_dim;
  } else {
    return std::nullopt;
  }
  o.ld = s[other] == 1 ? 0 : st[other];
  if (o.ld < 0 || o.ld % chunk != 0 || o.view.offset % chunk != 0) return std::nullopt;
  for (int d = 0; d < s.rank() - 2; ++d) {
    if (s[d] != 1 && st[d] % chunk != 0) return std::nullopt;
  }
  return o;
}

// Makes an 8-warp wgmma tile read its operands through the copy engine (shape.tma) when they
// suit tensor maps: one non-empty matrix (a batch would need a map per matrix) whose row
// strides are at least its rows' length; records the two views (A, then B) the launch encodes.
void add_tiled_views(MmaShape& shape, const MmaOperand& a, const MmaOperand& b, int64_t M,
                     int64_t N, int64_t K, int64_t batch, Emitter& e, LoweredKernel& out) {
  // (A map has no empty dimension: an empty matmul keeps the cp.async tile.)
  if (!tma_enabled() || shape.threads() != 256 || batch != 1 || M == 0 || N == 0 || K == 0) return;
  auto view = [&](const MmaOperand& o, int64_t mn, bool kmajor, uint32_t box_rows) {
    runtime::TiledView v;
    v.binding = e.binding(o.view.stored, false);
    v.element_bytes = 2;
    v.offset = static_cast<uint64_t>(o.view.offset);
    v.rows = static_cast<uint64_t>(kmajor ? mn : K);
    v.cols = static_cast<uint64_t>(kmajor ? K : mn);
    // A single row has no stride of its own (ld 0); the map still wants one, a multiple of 16
    // bytes.
    v.row_stride = v.rows == 1 ? (v.cols + 7) / 8 * 8 : static_cast<uint64_t>(o.ld);
    v.box_rows = box_rows;
    v.box_cols = 64;  // 128 bytes: one swizzle row
    return v;
  };
  runtime::TiledView va = view(a, M, true, static_cast<uint32_t>(shape.block_m()));
  runtime::TiledView vb = view(b, N, b.kmajor, b.kmajor ? shape.block_n() : 64u);
  for (const runtime::TiledView& v : {va, vb}) {
    if (v.row_stride < v.cols) return;
  }
  shape.tma = true;
  out.tiled_views = {va, vb};
  e.desc().tensor_maps = 2;
}

// Tensor-core matmul (kp.mma, CUDA): one MmaTile statement accumulates the block tile; the
// fused epilogue then runs per accumulator as in the SIMT template. Emits nothing and returns
// false when an operand is not a suitably aligned strided view of a buffer of the matmul's
// dtype (the SIMT template then runs).
bool lower_matmul_mma(const ir::Graph& g, const Plan& plan, const Emitter::LayoutFn& layout,
                      Emitter& e, const KernelPlan& kp, LoweredKernel& out) {
  ValueId mm = kp.anchor;
  ValueId a = g.node(mm).inputs[0], b = g.node(mm).inputs[1];
  DType dt = g.type(mm).dtype;
  MmaShape shape;
  const bool simt = kp.mma <= 0;  // kp.block == kVectorTileBlock: the CUDA f32 vector tile
  if (simt) {
    if (dt != DType::F32) return false;
    shape.kind = MmaShape::F32Simt;
  } else if (dt == DType::F16) {
    shape.kind = MmaShape::F16;
  } else if (dt == DType::BF16) {
    shape.kind = MmaShape::BF16;
  } else if (dt == DType::F32) {
    shape.kind = MmaShape::TF32;
  } else {
    return false;
  }
  if (g.type(a).dtype != dt || g.type(b).dtype != dt) return false;
  std::optional<StridedOperand> va = strided_operand(g, plan, layout, a);
  std::optional<StridedOperand> vb = strided_operand(g, plan, layout, b);
  if (!va || !vb) return false;
  const Shape& os = kp.shape;
  const Shape& as = g.type(a).shape;
  const Shape& bs = g.type(b).shape;
  const int r = os.rank();
  const int64_t chunk = 16 / shape.element_bytes();
  std::optional<MmaOperand> oa = mma_operand(as, *va, r - 1, r - 2, chunk);
  std::optional<MmaOperand> ob = mma_operand(bs, *vb, r - 2, r - 1, chunk);
  if (!oa || !ob) return false;
  if (simt) {
    // The vector tile reads A K-contiguous and B N-contiguous (x @ w); 8 warps of 16 x 256
    // outputs in the MmaTile geometry, 128 accumulators per thread; two stages of 32 k
    // (128-byte rows: 96 KiB).
    // Whole 16-byte chunks only: K and N multiples of 4 (slices may leave them otherwise).
    if (!oa->kmajor || ob->kmajor || as[r - 1] % 4 != 0 || os[r - 1] % 4 != 0) return false;
    static_cast<MmaTile&>(shape) = MmaTile{8, 1, 1, 32, 2, 128};
  } else {
    // The wgmma template takes f16/bf16 with A K-major only (TF32 has no transposed B; an
    // M-major A needs the instruction's transposed form and its own shared layout).
    const bool wgmma_fits = shape.kind != MmaShape::TF32 && oa->kmajor;
    static_cast<MmaTile&>(shape) = kMmaTiles[(wgmma_fits ? kp.mma : mma_sync_tile(kp.mma)) - 1];
  }
  shape.a_kmajor = oa->kmajor;
  shape.b_kmajor = ob->kmajor;

  int64_t M = os[r - 2], N = os[r - 1], K = as[r - 1];
  Shape batch(std::vector<int64_t>(os.dims.begin(), os.dims.end() - 2));
  const int64_t BM = shape.block_m(), BN = shape.block_n();
  if (shape.wgmma) add_tiled_views(shape, *oa, *ob, M, N, K, batch.numel(), e, out);
  int64_t tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  int64_t tiles = batch.numel() * tiles_m * tiles_n;
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
  int t = e.begin_for(SOp::ForRows, p_tiles);
  int bi = div(t, p_tmn);
  // Tensor-core tiles run in groups of 8 block rows, column by column, so that the operand
  // panels the resident workgroups read stay in L2. The vector tile runs row by row: its
  // register allocation came out worse with the grouping's arithmetic (H100 4096^3 f32: 3.23 ms
  // against 3.17, scripts/kernel-lab, session 8).
  constexpr int64_t kGroup = 8;
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
  // A copy-engine tile adds its producer warpgroup; one workgroup per SM either way.
  e.desc().workgroup_size = static_cast<uint32_t>(shape.threads() + (shape.tma ? 128 : 0));
  // One workgroup per SM: its registers (the vector tile's 128 accumulators per thread, or a
  // producer warpgroup's share) are the budget.
  if (simt || shape.tma) e.desc().min_workgroups_per_sm = 1;
  // Accumulator (mi, ni, c) of a thread holds output row g + 8 (c / 2) and column 2 t + c % 2
  // of fragment (mi, ni) of its warp's tile (the mma.sync C layout).
  int lid = e.builtin(Builtin::LocalId);
  int lane = e.bin(BinaryFn::BitAnd, lid, u(31));
  int warp = div(lid, u(32));
  int wm = add(m0, mul(div(warp, u(shape.warps_n)), u(shape.frags_m * 16)));
  int wn = add(n0, mul(rem(warp, u(shape.warps_n)), u(shape.frags_n * 8)));
  int g_row = div(lane, u(4));
  int t_col = mul(rem(lane, u(4)), u(2));
  CType out_t = compute_type(dt);
  if (simt) {
    // Accumulator 16 i + j: row 16 warp + 8 (lane / 16) + i, column 64 (j / 4) + 4 (lane % 16)
    // + j % 4.
    int rows = add(m0, add(mul(warp, u(16)), mul(div(lane, u(16)), u(8))));
    int cols = add(n0, mul(rem(lane, u(16)), u(4)));
    for (int i = 0; i < 8; ++i) {
      for (int j = 0; j < 16; ++j) {
        int accv = e.expr({XOp::ArrayLoad, CType::Float, decl.var, 0, {u(i * 16 + j)}});
        store_matmul_outputs(e, kp, e.cast(accv, out_t), bdims, add(rows, u(i)),
                             add(cols, u(64 * (j / 4) + j % 4)), pM, pN);
      }
    }
  }
  // The producer warpgroup holds no accumulators.
  if (shape.tma) e.begin_if(e.bin(BinaryFn::Lt, lid, u(shape.threads())));
  for (int mi = 0; mi < shape.frags_m && !simt; ++mi) {
    for (int ni = 0; ni < shape.frags_n; ++ni) {
      for (int c = 0; c < 4; ++c) {
        int i = (mi * shape.frags_n + ni) * 4 + c;
        int m = add(wm, add(g_row, u(mi * 16 + (c / 2) * 8)));
        int n = add(wn, add(t_col, u(ni * 8 + c % 2)));
        int accv = e.expr({XOp::ArrayLoad, CType::Float, decl.var, 0, {u(i)}});
        store_matmul_outputs(e, kp, e.cast(accv, out_t), bdims, m, n, pM, pN);
      }
    }
  }
  if (shape.tma) e.end();
  e.end();
  out.work_items = static_cast<uint64_t>(tiles);
  out.per_row = true;
  return true;
}

// Rank sort: each element counts the elements that go before it; O(n^2) per row, exact and
// stable (ties keep input order; NaN sorts last ascending and first descending, as on the CPU).
void lower_sort(const ir::Graph& g, Emitter& e, const KernelPlan& kp, LoweredKernel& out) {
  ValueId s = kp.anchor;
  const auto& attrs = g.node(s).get<ir::SortAttrs>();
  ValueId x = g.node(s).inputs[0];
  int axis = attrs.axis;
  int n = e.numel_param(kp.shape, "out");
  int len = e.size_param(kp.shape, axis, "axis");
  int lin = e.begin_for(SOp::ForGrid, n);
  Index idx{kp.shape, {}, lin};
  idx.dims.assign(kp.shape.rank(), -1);
  for (int d = 0; d < kp.shape.rank(); ++d) idx.dims[d] = e.dim(idx, d);
  int i = idx.dims[axis];
  int key_i = e.value(x, idx);
  auto less = [&](int a, int b) {  // a < b with NaN after every number
    int lt = e.bin(BinaryFn::Lt, a, b);
    if (!is_floating(e.type_of(a))) return lt;
    int a_nan = e.un(UnaryFn::IsNan, a), b_nan = e.un(UnaryFn::IsNan, b);
    return e.bin(BinaryFn::LogicalAnd, e.un(UnaryFn::LogicalNot, a_nan),
                 e.bin(BinaryFn::LogicalOr, b_nan, lt));
  };
  auto equal = [&](int a, int b) {
    int eq = e.bin(BinaryFn::Eq, a, b);
    if (!is_floating(e.type_of(a))) return eq;
    return e.bin(BinaryFn::LogicalOr, eq,
                 e.bin(BinaryFn::LogicalAnd, e.un(UnaryFn::IsNan, a), e.un(UnaryFn::IsNan, b)));
  };
  int rank = e.new_var(CType::Uint, e.const_u(0));
  int j = e.begin_for(SOp::ForSeq, len);
  Index jdx = idx;
  jdx.linear = -1;
  jdx.dims[axis] = j;
  int key_j = e.value(x, jdx);
  int first = attrs.descending ? less(key_i, key_j) : less(key_j, key_i);
  int tie = e.bin(BinaryFn::LogicalAnd, equal(key_j, key_i), e.bin(BinaryFn::Lt, j, i));
  int before = e.bin(BinaryFn::LogicalOr, first, tie);
  e.assign(rank, e.bin(BinaryFn::Add, e.var(rank, CType::Uint),
                       e.select(before, e.const_u(1), e.const_u(0))));
  e.end();
  Index dst = idx;
  dst.linear = -1;
  dst.dims[axis] = e.var(rank, CType::Uint);
  int value = attrs.indices ? e.cast(i, compute_type(g.type(s).dtype)) : key_i;
  e.store(s, e.linear(dst), value);
  e.end();
  out.work_items = static_cast<uint64_t>(kp.shape.numel());
}

// Scatter-add without atomics: each target element sums the values whose index points at it.
void lower_scatter(const ir::Graph& g, Emitter& e, const KernelPlan& kp, LoweredKernel& out) {
  ValueId s = kp.anchor;
  int axis = g.node(s).get<ir::AxisAttrs>().axis;
  ValueId x = g.node(s).inputs[0], index = g.node(s).inputs[1], values = g.node(s).inputs[2];
  const Shape& is = g.type(index).shape;
  int n = e.numel_param(kp.shape, "out");
  int lin = e.begin_for(SOp::ForGrid, n);
  Index idx{kp.shape, {}, lin};
  idx.dims.assign(kp.shape.rank(), -1);
  int acc_init = e.value(x, idx);
  CType t = e.type_of(acc_init);
  int acc = e.new_var(t, acc_init);
  if (is.numel() > 0) {
    int in_range = -1;
    Index jdx{is, std::vector<int>(is.rank(), -1), -1};
    for (int d = 0; d < is.rank(); ++d) {
      if (d == axis) continue;
      int dd = e.dim(idx, d);
      int size = e.size_param(is, d, "index");
      int ok = e.bin(BinaryFn::Lt, dd, size);
      in_range = in_range < 0 ? ok : e.bin(BinaryFn::LogicalAnd, in_range, ok);
      jdx.dims[d] = e.umin(dd, e.bin(BinaryFn::Sub, size, e.const_u(1)));
    }
    if (in_range < 0) in_range = e.const_b(true);
    int target = e.dim(idx, axis);
    int len = e.size_param(is, axis, "index");
    int xsize = e.size_param(kp.shape, axis, "target");
    int i = e.begin_for(SOp::ForSeq, len);
    jdx.dims[axis] = i;
    int j = e.value(index, jdx);
    CType jt = e.type_of(j);
    int bad = e.bin(BinaryFn::Ge, j, e.cast(xsize, jt));
    if (jt != CType::Uint) {
      bad = e.bin(BinaryFn::LogicalOr, bad, e.bin(BinaryFn::Lt, j, e.cast(e.const_u(0), jt)));
    }
    e.error_if(e.bin(BinaryFn::LogicalAnd, in_range, bad), {ErrorKind::IndexOutOfRange, s, axis}, j,
               xsize);
    int hit = e.bin(BinaryFn::LogicalAnd, in_range, e.bin(BinaryFn::Eq, j, e.cast(target, jt)));
    int v = e.value(values, jdx);
    e.assign(acc, e.bin(BinaryFn::Add, e.var(acc, t), e.select(hit, v, e.cast(e.const_u(0), t))));
    e.end();
  }
  e.store(s, lin, e.var(acc, t));
  e.end();
  out.work_items = static_cast<uint64_t>(kp.shape.numel());
}

}  // namespace

LoweredKernel lower_kernel(const ir::Graph& g, const Plan& plan, int kernel,
                           const Emitter::LayoutFn& layout) {
  const KernelPlan& kp = plan.kernels[kernel];
  Emitter e(g, plan, kernel, layout);
  LoweredKernel out;
  e.desc().workgroup_size = kThreads;
  if (kp.kind == KernelKind::Row && kp.workgroup > 0) e.desc().workgroup_size = kp.workgroup;
  switch (kp.kind) {
    case KernelKind::Pointwise:
      lower_pointwise(g, e, kp, out);
      break;
    case KernelKind::Row:
      lower_row(g, e, kp, out);
      break;
    case KernelKind::Matmul:
      if (!((kp.mma > 0 && kp.mma <= kMmaTileCount) || kp.block == kVectorTileBlock) ||
          !lower_matmul_mma(g, plan, layout, e, kp, out)) {
        lower_matmul(g, plan, e, kp, out);
      }
      break;
    case KernelKind::Sort:
      lower_sort(g, e, kp, out);
      break;
    case KernelKind::Scatter:
      lower_scatter(g, e, kp, out);
      break;
  }
  out.desc = std::move(e.desc());
  out.desc.name = kernel_name(g, kp);
  for (const Stmt& st : out.desc.body) {
    if (st.op == SOp::MmaTile) {
      const bool simt = MmaShape::unpack(st.code).kind == MmaShape::F32Simt;
      out.desc.name += simt ? "_tile" : "_mma";
      out.mma = !simt;
      break;
    }
  }
  out.bindings = e.bindings();
  out.writes = e.writes();
  out.params = std::move(e.params());
  out.error_sites = e.error_sites();
  out.scalar_patches = e.scalar_patches();
  out.fused_nodes = e.fused_nodes() + static_cast<int>(kp.reductions.size()) + (kp.anchor >= 0);
  if (kp.kind == KernelKind::Pointwise) {
    out.desc.buffers_may_alias = true;
    std::vector<bool> at_home;
    for (ValueId b : out.bindings) at_home.push_back(e.read_only_at_home(b));
    out.in_place_candidates = in_place_donors(out.desc, out.bindings, out.writes, at_home);
  }
  return out;
}

}  // namespace ember::jit
