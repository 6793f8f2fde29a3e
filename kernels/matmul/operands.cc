#include "kernels/matmul/operands.h"

#include <algorithm>
#include <map>

#include "kernels/matmul/precision.h"

namespace ember::jit {
namespace {

using ir::OpKind;
using ir::ValueId;

// The strides that read a tensor of shape `to` from the same memory as one of shape `from`
// with strides `st` (reshape as a view), if any: dims of `to` must each lie within a run of
// `from`'s dims that are contiguous with one another.
std::optional<std::vector<int64_t>> reshape_strides(const Shape& from,
                                                    const std::vector<int64_t>& st,
                                                    const Shape& to) {
  std::vector<int64_t> out(to.rank(), 0);
  if (from.numel() == 0) return out;  // nothing is read
  int view_d = to.rank() - 1;
  int64_t base = from.rank() > 0 ? st.back() : 1, run = 1, view_run = 1;
  for (int d = from.rank() - 1; d >= 0; --d) {
    run *= from[d];
    // A run ends where the next dim out is not laid out right after this run.
    if (d == 0 || (from[d - 1] != 1 && st[d - 1] != run * base)) {
      while (view_d >= 0 && (view_run < run || to[view_d] == 1)) {
        out[view_d] = view_run * base;
        view_run *= to[view_d];
        --view_d;
      }
      if (view_run != run) return std::nullopt;
      if (d > 0) {
        base = st[d - 1];
        run = view_run = 1;
      }
    }
  }
  for (; view_d >= 0; --view_d) {  // leading dims of one
    if (to[view_d] != 1) return std::nullopt;
  }
  return out;
}

}  // namespace

std::optional<StridedOperand> strided_operand(const ir::Graph& g, const std::vector<char>& stored,
                                              const Emitter::LayoutFn& layout, ValueId v) {
  if (stored[v]) {
    const runtime::Array& a = layout(v);
    return StridedOperand{v, a.offset, a.strides};
  }
  const ir::Node& n = g.node(v);
  if (n.op != OpKind::Permute && n.op != OpKind::Expand && n.op != OpKind::Slice &&
      n.op != OpKind::Reshape) {
    return std::nullopt;
  }
  std::optional<StridedOperand> in = strided_operand(g, stored, layout, n.inputs[0]);
  if (!in) return in;
  const Shape& is = g.type(n.inputs[0]).shape;
  const Shape& os = g.type(v).shape;
  if (n.op == OpKind::Reshape) {
    std::optional<std::vector<int64_t>> st = reshape_strides(is, in->strides, os);
    if (!st) return std::nullopt;
    in->strides = std::move(*st);
    return in;
  }
  if (n.op == OpKind::Slice) {  // a window (x.narrow(...) of weights, say) moves the start
    const auto& attrs = n.get<ir::SliceAttrs>();
    for (size_t d = 0; d < in->strides.size(); ++d) {
      in->offset += attrs.starts[d] * in->strides[d];
      in->strides[d] *= attrs.steps[d];
    }
    return in;
  }
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

namespace {

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

}  // namespace

bool copy_engine_fits(const MmaTile& tile, const MmaOperand& a, const MmaOperand& b, int64_t M,
                      int64_t N, int64_t K, int64_t batch) {
  if (!tma_enabled() || !tile.wgmma || tile.threads() != 256 || batch != 1 || M == 0 || N == 0 ||
      K == 0)
    return false;
  // A single row has no stride of its own (ld 0); its map gets one (add_tiled_views).
  auto fits = [&](const MmaOperand& o, int64_t mn) {
    const int64_t rows = o.kmajor ? mn : K, cols = o.kmajor ? K : mn;
    return rows == 1 || o.ld >= cols;
  };
  return fits(a, M) && fits(b, N);
}

std::optional<TileOperands> tile_operands(const ir::Graph& g, const Plan& plan,
                                          const Emitter::LayoutFn& layout, const KernelPlan& kp,
                                          const MatmulVariant& v) {
  ValueId mm = kp.anchor;
  ValueId a = g.node(mm).inputs[0], b = g.node(mm).inputs[1];
  DType dt = g.type(mm).dtype;
  MmaShape shape;
  const bool simt = v.mma <= 0;  // is_vector_tile(v.block): a CUDA f32 vector tile
  if (simt) {
    if (dt != DType::F32) return std::nullopt;
    shape.kind = MmaShape::F32Simt;
  } else if (dt == DType::F16) {
    shape.kind = MmaShape::F16;
  } else if (dt == DType::BF16) {
    shape.kind = MmaShape::BF16;
  } else if (dt == DType::F32) {
    shape.kind = MmaShape::TF32;
  } else {
    return std::nullopt;
  }
  if (g.type(a).dtype != dt || g.type(b).dtype != dt) return std::nullopt;
  std::optional<StridedOperand> va = strided_operand(g, plan.stored, layout, a);
  std::optional<StridedOperand> vb = strided_operand(g, plan.stored, layout, b);
  if (!va || !vb) return std::nullopt;
  const Shape& os = kp.shape;
  const Shape& as = g.type(a).shape;
  const int r = os.rank();
  const int64_t chunk = 16 / shape.element_bytes();
  std::optional<MmaOperand> oa = mma_operand(as, *va, r - 1, r - 2, chunk);
  std::optional<MmaOperand> ob = mma_operand(g.type(b).shape, *vb, r - 2, r - 1, chunk);
  if (!oa || !ob) return std::nullopt;
  if (simt) {
    // The vector tiles read A K- or M-contiguous and B N-contiguous (x @ w, x^T @ dy); 8 warps
    // of 16 x 256 (or 16 x 128) outputs in the MmaTile geometry, 128 (64) accumulators per
    // thread; two stages of 32 k (128-byte rows: 96 KiB, or 64).
    // Whole 16-byte chunks only: K, N and (M-major A) M multiples of 4 (slices may leave them
    // otherwise).
    const int64_t M = os[r - 2];
    if (ob->kmajor || as[r - 1] % 4 != 0 || os[r - 1] % 4 != 0 || (!oa->kmajor && M % 4 != 0))
      return std::nullopt;
    const int frags_n = v.block == kNarrowVectorTileBlock ? 16 : 32;
    static_cast<MmaTile&>(shape) = MmaTile{8, 1, 1, frags_n, 2, 128};
  } else {
    // The wgmma templates take A K-major only (an M-major A needs the instruction's transposed
    // form and its own shared layout). TF32 has no transposed form at all: it runs through the
    // copy engine only, and an N-major B swaps the operands' roles (wgmma_tf32.cuh).
    bool wgmma_fits = oa->kmajor;
    if (shape.kind == MmaShape::TF32 && v.mma > 0 && kMmaTiles[v.mma - 1].wgmma) {
      const int64_t M = os[r - 2], N = os[r - 1], K = as[r - 1];
      wgmma_fits = wgmma_fits && copy_engine_fits(kMmaTiles[v.mma - 1], *oa, *ob, M, N, K,
                                                  os.numel() / std::max<int64_t>(1, M * N));
      shape.swap = wgmma_fits && !ob->kmajor;
    }
    static_cast<MmaTile&>(shape) = kMmaTiles[(wgmma_fits ? v.mma : mma_sync_tile(v.mma)) - 1];
  }
  shape.a_kmajor = oa->kmajor;
  shape.b_kmajor = ob->kmajor;
  return TileOperands{shape, *oa, *ob};
}

std::optional<StridedOperand> strided_view(const ir::Graph& g, const std::vector<char>& stored,
                                           ValueId v) {
  std::map<ValueId, runtime::Array> arrays;
  const Emitter::LayoutFn contiguous = [&](ValueId s) -> const runtime::Array& {
    runtime::Array& a = arrays[s];
    a.type = g.type(s);
    a.strides = a.type.shape.contiguous_strides();
    return a;
  };
  return strided_operand(g, stored, contiguous, v);
}

bool reads_as_strided_view(const ir::Graph& g, const std::vector<char>& stored, ValueId v) {
  return strided_view(g, stored, v).has_value();
}

bool tile_reads_in_place(const ir::Graph& g, const std::vector<char>& stored, ValueId v) {
  std::optional<StridedOperand> view = strided_view(g, stored, v);
  if (!view) return false;
  const Shape& s = g.type(v).shape;
  const int r = s.rank();
  const int64_t chunk = 16 / static_cast<int64_t>(dtype_size(g.type(v).dtype));
  return r >= 2 && mma_operand(s, std::move(*view), r - 1, r - 2, chunk).has_value();
}

MatmulVariant admitted(const ir::Graph& g, const Plan& plan, const Emitter::LayoutFn& layout,
                       const KernelPlan& kp, MatmulVariant v) {
  const bool tile = (v.mma > 0 && v.mma <= kMmaTileCount) || is_vector_tile(v.block);
  if (!tile) {
    v.mma = 0;
    return v;
  }
  std::optional<TileOperands> t = tile_operands(g, plan, layout, kp, v);
  if (!t) {
    v.mma = 0;
    // A vector tile the operands do not suit becomes the template's own block for the output
    // (the narrow tile's outputs give block 8 too few workgroups).
    if (is_vector_tile(v.block)) {
      const Shape& os = kp.shape;
      const int64_t m = os[os.rank() - 2], n = os[os.rank() - 1];
      v.block = matmul_block(m, n, m * n == 0 ? 0 : os.numel() / (m * n));
    }
    return v;
  }
  if (v.mma > 0 && kMmaTiles[v.mma - 1].wgmma && !t->shape.wgmma) v.mma = mma_sync_tile(v.mma);
  return v;
}

}  // namespace ember::jit
