#include "kernels/conv/tensor_core.h"

#include <cstdlib>
#include <limits>
#include <string>

#include "kernels/matmul/precision.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::ValueId;

std::optional<MmaShape::Kind> tile_kind(DType t) {
  if (t == DType::F16) return MmaShape::F16;
  if (t == DType::BF16) return MmaShape::BF16;
  if (t == DType::F32) return allow_tf32() ? MmaShape::TF32 : MmaShape::F32Simt;
  return std::nullopt;
}

bool fits_u32(int64_t v) { return v >= 0 && v <= std::numeric_limits<uint32_t>::max(); }

// The weight [O, Cg, kernel...] as K-major rows: each output channel's Cg * taps weights
// contiguous, rows `ld` apart, every row start on a 16-byte boundary (the B copies).
std::optional<int64_t> weight_rows(const Shape& ws, const StridedOperand& w, int element_bytes) {
  int64_t expect = 1;
  for (int d = ws.rank() - 1; d >= 1; --d) {
    if (ws[d] != 1 && w.strides[d] != expect) return std::nullopt;
    expect *= ws[d];
  }
  const int64_t ld = ws[0] == 1 ? (expect + 7) / 8 * 8 : w.strides[0];
  const int64_t chunk = 16 / element_bytes;
  if (ld < expect || ld % chunk != 0 || w.offset % chunk != 0) return std::nullopt;
  return ld;
}

// The tile's k table (conv_gather.cuh): 8 bytes per k of the whole k-tiles, after the stages.
int64_t k_table_bytes(const MmaShape& shape, int64_t K) {
  const int64_t bk = shape.row_bytes / shape.element_bytes();
  return (K + bk - 1) / bk * bk * 8;
}
// The f32 tiles' groups of 2 BM threads that split a block's k-tiles (conv_simt.cuh).
int simt_k_split(const MmaShape& shape) { return shape.threads() / (2 * shape.block_m()); }
// The stages' bytes: the f32 tiles pad their rows of 16 k to 20 floats, a set per group.
int64_t stage_bytes(const MmaShape& shape) {
  if (shape.kind == MmaShape::F32Simt) {
    return int64_t{simt_k_split(shape)} * shape.stages * (shape.block_m() + shape.block_n()) * 80;
  }
  return shape.shared_bytes();
}
constexpr int64_t kMaxKTableBytes = 64 * 1024;

// The two-group split-k f32 tile runs three workgroups per multiprocessor: its launch bound caps
// it at 80 registers (NVRTC 13, sm_90a: no spills for 2-d convolutions; a 1-d one's tile spills
// 44-148 bytes there and keeps the compiler's choice). Left to itself NVRTC gives it 128 (two per
// SM). Only where three fit in a Hopper SM's 228 KiB of shared memory (stages and k table, and the
// driver's 1 KiB each: K up to 4480); parts with less (A100 164 KiB, sm_86/89 100 KiB) fit fewer
// and get only the register cap (not measured there). The other f32 tiles keep the compiler's
// 128: the 128 x 64 tile at three per SM took 0.256 ms against 0.250 for conv2d_resnet's forward
// (H200, session 28, call 2).
int simt_workgroups_per_sm(const MmaShape& shape, int spatial_dims, int64_t shared_bytes) {
  constexpr int64_t kSharedPerSm = 228 * 1024, kReservedPerWorkgroup = 1024;
  if (simt_k_split(shape) != 2 || spatial_dims != 2) return 0;
  return 3 * (shared_bytes + kReservedPerWorkgroup) <= kSharedPerSm ? 3 : 0;
}

// The table packs a tap's row and column shifts into 16 bits each, and a row past the input is
// marked by a shift of 0x7fff: every shift, and every input size plus its padding, must stay
// below it.
bool shifts_fit(const ir::Node& n, const Shape& xs, const Shape& ws) {
  const auto& a = n.get<ir::ConvAttrs>();
  for (int d = 0; d + 2 < xs.rank(); ++d) {
    if ((ws[d + 2] - 1) * a.dilation[d] >= 0x7fff || xs[d + 2] + a.pad_before[d] >= 0x7fff)
      return false;
  }
  return true;
}

// Whether the view's element offsets (the input's as bytes: the k table's) fit 32 bits.
bool offsets_fit(const Shape& s, const StridedOperand& v, int64_t element_bytes = 1) {
  int64_t last = v.offset;
  for (int d = 0; d < s.rank(); ++d) last += (s[d] - 1) * v.strides[d];
  for (int64_t st : v.strides)
    if (!fits_u32(st)) return false;
  return fits_u32(v.offset) && fits_u32(last * element_bytes);
}

// The k table's byte offsets run from a pixel's top-left tap to its farthest one: a group's
// channels and the kernel's reach, which padding can put past the input's last element.
bool reach_fits(const ir::Node& n, const Shape& ws, const StridedOperand& x, int64_t es) {
  const auto& a = n.get<ir::ConvAttrs>();
  int64_t reach = (ws[1] - 1) * x.strides[1];
  for (int d = 0; d + 2 < ws.rank(); ++d)
    reach += (ws[d + 2] - 1) * a.dilation[d] * x.strides[d + 2];
  return fits_u32(reach * es);
}

// Whether convolution n's shape suits the tiles at all, whatever its operands' layout: the k
// table's size and shifts, and (exact f32) a problem the f32 tiles take (choose_conv_simt_tile).
bool shape_fits(const ir::Graph& g, ValueId y) {
  const ir::Node& n = g.node(y);
  const Shape &xs = g.type(n.inputs[0]).shape, &ws = g.type(n.inputs[1]).shape;
  const int64_t K = ws.numel() / std::max<int64_t>(ws[0], 1);
  return shifts_fit(n, xs, ws) && K * 8 <= kMaxKTableBytes &&
         (tile_kind(n.type.dtype) != MmaShape::F32Simt || conv_simt_tile_for(conv_gemm(g, y)) > 0);
}

}  // namespace

bool conv_tile_dtype_fits(const ir::Graph& g, ValueId y) {
  const ir::Node& n = g.node(y);
  const Shape& ws = g.type(n.inputs[1]).shape;
  const int sr = ws.rank() - 2;
  const int64_t og = ws[0] / n.get<ir::ConvAttrs>().groups;
  // Fewer than 16 output channels per group would leave most of a tile's columns empty.
  return tile_kind(n.type.dtype).has_value() && (sr == 1 || sr == 2) && og >= 16 &&
         g.type(n.inputs[0]).dtype == n.type.dtype && g.type(n.inputs[1]).dtype == n.type.dtype;
}

int64_t max_dynamic_shared(const runtime::Backend& backend) {
  const std::string arch = backend.target();
  // sm_80/sm_87 (A100, Orin) opt in to 163 KiB, sm_90 (H100, H200) and sm_100 to 227 KiB; the
  // others (sm_86, sm_89, sm_120: consumer and workstation parts) to 99 KiB.
  if (arch.rfind("sm_90", 0) == 0 || arch.rfind("sm_100", 0) == 0) return 227 * 1024;
  if (arch.rfind("sm_80", 0) == 0 || arch.rfind("sm_87", 0) == 0) return 163 * 1024;
  return 99 * 1024;
}

int64_t conv_tile_shared_bytes(const ConvTile& t, int64_t K) {
  return stage_bytes(t.shape) + k_table_bytes(t.shape, K);
}

std::optional<ConvTile> conv_tile(const ir::Graph& g, const std::vector<char>& stored,
                                  const Emitter::LayoutFn& layout, ValueId y, int tile,
                                  int64_t max_shared) {
  if (tile < 1 || tile > kConvMmaTileCount || !conv_tile_dtype_fits(g, y) ||
      (tile >= kConvSimtTile) != conv_tile_is_simt(g, y)) {
    return std::nullopt;
  }
  const ir::Node& n = g.node(y);
  const ValueId x = n.inputs[0], w = n.inputs[1];
  std::optional<StridedOperand> xv = strided_operand(g, stored, layout, x);
  std::optional<StridedOperand> wv = strided_operand(g, stored, layout, w);
  if (!xv || !wv) return std::nullopt;
  ConvTile t;
  static_cast<MmaTile&>(t.shape) = kConvMmaTiles[tile - 1];
  t.shape.kind = *tile_kind(n.type.dtype);
  t.shape.a_kmajor = false;
  t.shape.b_kmajor = true;
  t.shape.conv = true;
  const Shape &xs = g.type(x).shape, &ws = g.type(w).shape;
  std::optional<int64_t> ld = weight_rows(ws, *wv, t.shape.element_bytes());
  const int64_t K = ws.numel() / std::max<int64_t>(ws[0], 1);
  const int64_t es = t.shape.element_bytes();
  if (!ld || !offsets_fit(xs, *xv, es) || !reach_fits(n, ws, *xv, es) || !offsets_fit(ws, *wv) ||
      !fits_u32(n.type.shape.numel()) || !shifts_fit(n, xs, ws) ||
      k_table_bytes(t.shape, K) > kMaxKTableBytes) {
    return std::nullopt;
  }
  if (stage_bytes(t.shape) + k_table_bytes(t.shape, K) > max_shared) return std::nullopt;
  t.x = std::move(*xv);
  t.w = std::move(*wv);
  t.w_ld = *ld;
  return t;
}

bool conv_tile_is_simt(const ir::Graph& g, ValueId y) {
  return tile_kind(g.type(y).dtype) == MmaShape::F32Simt;
}

bool conv_tile_reads(const ir::Graph& g, const std::vector<char>& stored, ValueId y, ValueId in) {
  const ir::Node& n = g.node(y);
  const int es = n.type.dtype == DType::F32 ? 4 : 2;
  const Shape& ws = g.type(n.inputs[1]).shape;
  // Weight rows of K not a multiple of 16 bytes are never admitted, nor shapes the tiles do not
  // take: storing cannot help.
  if ((ws.numel() / std::max<int64_t>(ws[0], 1)) * es % 16 != 0 || !shape_fits(g, y)) return true;
  std::optional<StridedOperand> v = strided_view(g, stored, in);
  if (!v) return false;
  if (in != n.inputs[1]) return true;
  return weight_rows(g.type(in).shape, *v, es).has_value();
}

int conv_simt_tile_for(const ConvShape& s) {
  const int64_t tiles = s.groups * ((s.M + 127) / 128) * ((s.N + 63) / 64);
  if (tiles >= 264) return kConvSimtTile;
  if (s.K < 1024) return 0;
  static const int split = [] {
    const char* env = std::getenv("EMBER_CONV_SIMT_SPLIT");
    return env != nullptr && std::string(env) == "4" ? kConvSimtSplitTile : kConvSimtSplit2Tile;
  }();
  return split;
}

int conv_tile_heuristic(int64_t groups, int64_t M, int64_t N) {
  if (N <= 64) return 5;
  const int64_t tiles = groups * ((M + 127) / 128) * ((N + 127) / 128);
  return tiles < 132 ? 5 : 3;
}

void lower_conv_tile(const ir::Graph& g, Emitter& e, const KernelPlan& kp, const ConvTile& t,
                     KernelGeometry& out) {
  const ir::Node& node = g.node(kp.anchor);
  const auto& a = node.get<ir::ConvAttrs>();
  const Shape &xs = g.type(node.inputs[0]).shape, &ws = g.type(node.inputs[1]).shape;
  const Shape& ys = kp.shape;
  const int sr = xs.rank() - 2;
  const ConvShape gemm = conv_gemm(g, kp.anchor);
  const int64_t groups = gemm.groups, M = gemm.M, N = gemm.N, K = gemm.K, cg = ws[1];
  const MmaShape& shape = t.shape;
  const int64_t BM = shape.block_m(), BN = shape.block_n();
  const int64_t tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int64_t tiles = groups * tiles_m * tiles_n;
  auto u = [&](int64_t v) { return e.const_u(static_cast<uint64_t>(v)); };
  auto add = [&](int p, int q) { return e.bin(BinaryFn::Add, p, q); };
  auto mul = [&](int p, int q) { return e.bin(BinaryFn::Mul, p, q); };
  auto div = [&](int p, int q) { return e.bin(BinaryFn::Div, p, q); };
  auto rem = [&](int p, int q) { return e.bin(BinaryFn::Rem, p, q); };
  ConvOutput output(g, e, kp, M, N);
  const int p_tiles = e.param_u("tiles", static_cast<uint32_t>(tiles));
  const int p_tn = e.param_u("tiles_n", static_cast<uint32_t>(tiles_n));
  const int p_tmn = e.param_u("tiles_mn", static_cast<uint32_t>(tiles_m * tiles_n));
  const int tl = e.begin_for(SOp::ForRows, p_tiles);
  const int group = div(tl, p_tmn), in_group = rem(tl, p_tmn);
  // Consecutive workgroups take a block row's columns: they share its gathered pixels in L2.
  const int m0 = mul(div(in_group, p_tn), u(BM)), n0 = mul(rem(in_group, p_tn), u(BN));
  // ConvTileArgs in order (kernels/conv/conv_mma.cuh); a 1-d convolution is a 2-d one of one
  // row.
  auto param = [&](const char* key, int64_t v) { return e.param_u(key, static_cast<uint32_t>(v)); };
  const int x_off =
      add(param("x:off", t.x.offset), mul(group, param("x:group", cg * t.x.strides[1])));
  const int w_off = add(param("w:off", t.w.offset), mul(group, param("w:group", N * t.w_ld)));
  // Spatial value d of `v` (dims 0.. of the convolution's spatial ones) as the tile's rows (r 0)
  // or columns (r 1): a 1-d convolution has one row (`one`).
  auto at = [&](const std::vector<int64_t>& v, size_t first, int r, int64_t one) {
    return sr == 2 ? v[first + r] : r == 0 ? one : v[first];
  };
  const std::vector<int64_t> xd = xs.vector(), yd = ys.vector(), wd = ws.vector();
  std::vector<int> args{x_off,
                        param("x:sn", t.x.strides[0]),
                        param("x:sc", t.x.strides[1]),
                        param("x:sh", at(t.x.strides, 2, 0, 0)),
                        param("x:sw", at(t.x.strides, 2, 1, 0)),
                        param("H", at(xd, 2, 0, 1)),
                        param("W", at(xd, 2, 1, 1)),
                        param("OH", at(yd, 2, 0, 1)),
                        param("OW", at(yd, 2, 1, 1)),
                        u(at(wd, 2, 0, 1)),
                        u(at(wd, 2, 1, 1)),
                        u(at(a.stride, 0, 0, 1)),
                        u(at(a.stride, 0, 1, 1)),
                        u(at(a.pad_before, 0, 0, 0)),
                        u(at(a.pad_before, 0, 1, 0)),
                        u(at(a.dilation, 0, 0, 1)),
                        u(at(a.dilation, 0, 1, 1)),
                        w_off,
                        param("w:ld", t.w_ld),
                        param("M", M),
                        param("N", N),
                        param("K", K),
                        m0,
                        n0};
  const bool simt = shape.kind == MmaShape::F32Simt;
  Stmt decl{SOp::DeclArray};
  decl.var = e.desc().num_vars++;
  decl.type = CType::Float;
  decl.code = simt ? 32 : shape.accumulators();  // the f32 tiles: 8 x 4 or 4 x 8
  e.desc().body.push_back(decl);
  Stmt tile{SOp::MmaTile};
  tile.var = decl.var;
  tile.code = shape.pack();
  tile.buffer = e.binding(t.x.stored, false);
  tile.buffer2 = e.binding(t.w.stored, false);
  tile.args = std::move(args);
  e.desc().body.push_back(tile);
  e.desc().dynamic_shared_bytes =
      static_cast<uint32_t>(stage_bytes(shape) + k_table_bytes(shape, K));
  e.desc().workgroup_size = static_cast<uint32_t>(shape.threads());
  if (simt) {
    e.desc().min_workgroups_per_sm =
        simt_workgroups_per_sm(shape, sr, e.desc().dynamic_shared_bytes);
  }
  // Accumulator (mi, ni, c) of a thread: row g + 8 (c / 2) and column 2 t + c % 2 of fragment
  // (mi, ni) of its warp's tile (the mma.sync C layout).
  const int lid = e.builtin(Builtin::LocalId);
  const int lane = e.bin(BinaryFn::BitAnd, lid, u(31)), warp = div(lid, u(32));
  const int wm = mul(div(warp, u(shape.warps_n)), u(shape.frags_m * 16));
  const int wn = mul(rem(warp, u(shape.warps_n)), u(shape.frags_n * 8));
  const int row0 = add(m0, add(wm, div(lane, u(4)))),
            col0 = add(n0, add(wn, mul(rem(lane, u(4)), u(2))));
  const CType acc_t = compute_type(node.type.dtype);
  if (simt) {
    // Accumulator CJ i + j: row tr + 16 i, column CJ tc + j (tr = thread % 16, tc = thread / 16)
    // of group 0, which holds the sums of a split k (conv_simt.cuh).
    const int64_t gt = 2 * shape.block_m(), ri = shape.block_m() / 16, cj = 32 / ri;
    if (simt_k_split(shape) > 1) e.begin_if(e.bin(BinaryFn::Lt, lid, u(gt)));
    const int tr = add(m0, rem(lid, u(16))), tc = add(n0, mul(div(lid, u(16)), u(cj)));
    for (int i = 0; i < ri; ++i) {
      for (int j = 0; j < cj; ++j) {
        const int accv = e.expr({XOp::ArrayLoad, CType::Float, decl.var, 0, {u(i * cj + j)}});
        output.store(group, add(tr, u(16 * i)), add(tc, u(j)), e.cast(accv, acc_t));
      }
    }
    if (simt_k_split(shape) > 1) e.end();
    e.end();
    out.work_items = static_cast<uint64_t>(tiles);
    out.per_row = true;
    return;
  }
  for (int mi = 0; mi < shape.frags_m; ++mi) {
    for (int ni = 0; ni < shape.frags_n; ++ni) {
      for (int c = 0; c < 4; ++c) {
        const int i = (mi * shape.frags_n + ni) * 4 + c;
        const int accv = e.expr({XOp::ArrayLoad, CType::Float, decl.var, 0, {u(i)}});
        output.store(group, add(row0, u(mi * 16 + (c / 2) * 8)), add(col0, u(ni * 8 + c % 2)),
                     e.cast(accv, acc_t));
      }
    }
  }
  e.end();
  out.work_items = static_cast<uint64_t>(tiles);
  out.per_row = true;
}

}  // namespace ember::jit
