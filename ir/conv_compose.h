#pragma once
// Transposed convolution and the weight gradient of a convolution, written as forward
// convolutions (Conv is the only convolution primitive). Templates over the recording interface
// so that the VJP rules (ir::Builder on value ids) and the frontend's conv_transpose (taped
// tensors) compose them the same way. `Ops` provides, for its value type V:
//   Shape shape(V); V reshape(V, Shape); V permute(V, perm); V flip(V, axes);
//   V pad(V, before, after) (zeros); V slice(V, starts, counts) (unit steps);
//   V conv(V x, V w, const ConvAttrs&); V sum(V, axis) (keeps the axis); V add(V, V).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "ir/ops.h"

namespace ember::ir::conv_compose {

// x with `amount` elements added (zeros) or removed on each side of each spatial dim.
template <class Ops, class V>
V pad_or_trim(Ops& o, V x, const std::vector<int64_t>& before, const std::vector<int64_t>& after) {
  const Shape s = o.shape(x);
  const int r = s.rank();
  std::vector<int64_t> starts(r, 0), counts = s.vector(), pb(r, 0), pa(r, 0);
  bool trim = false, grow = false;
  for (int d = 2; d < r; ++d) {
    const int64_t b = before[d - 2], a = after[d - 2];
    if (b < 0) starts[d] = -b, counts[d] += b, trim = true;
    if (a < 0) counts[d] += a, trim = true;
    if (b > 0) pb[d] = b, grow = true;
    if (a > 0) pa[d] = a, grow = true;
  }
  if (trim) x = o.slice(x, starts, counts);
  if (grow) x = o.pad(x, pb, pa);
  return x;
}

// Inserts stride - 1 zeros between neighbours along each spatial dim.
template <class Ops, class V>
V dilate_spatial(Ops& o, V x, const std::vector<int64_t>& stride) {
  for (size_t i = 0; i < stride.size(); ++i) {
    const int d = static_cast<int>(i) + 2;
    const int64_t s = stride[i];
    const Shape shape = o.shape(x);
    const int64_t len = shape[d];
    if (s == 1 || len <= 1) continue;
    std::vector<int64_t> split = shape.vector();
    split.insert(split.begin() + d + 1, 1);
    V t = o.reshape(x, Shape(split));
    std::vector<int64_t> before(split.size(), 0), after(split.size(), 0);
    after[d + 1] = s - 1;
    t = o.pad(t, before, after);
    std::vector<int64_t> spread = shape.vector();
    spread[d] = len * s;
    t = o.reshape(t, Shape(spread));
    std::vector<int64_t> starts(spread.size(), 0), counts = spread;
    counts[d] = (len - 1) * s + 1;
    x = o.slice(t, starts, counts);
  }
  return x;
}

inline std::vector<int> iota_perm(int r) {
  std::vector<int> p(r);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

// The transpose of conv(., w, a) applied to y [N, O, *OS]: [N, C, *out_spatial] with
// C = w.shape[1] * groups. out_spatial must be one of the sizes the forward maps to OS (the
// output padding of a transposed convolution picks among them).
template <class Ops, class V>
V transpose(Ops& o, V y, V w, const ConvAttrs& a, const std::vector<int64_t>& out_spatial) {
  const Shape ws = o.shape(w);
  const int r = ws.rank(), sr = r - 2;
  const int64_t groups = a.groups, og = ws[0] / groups, cg = ws[1];
  V up = dilate_spatial(o, y, a.stride);
  std::vector<int64_t> before(sr), after(sr);
  for (int d = 0; d < sr; ++d) {
    const int64_t reach = a.dilation[d] * (ws[d + 2] - 1);
    before[d] = reach - a.pad_before[d];
    after[d] = out_spatial[d] + reach - o.shape(up)[d + 2] - before[d];
  }
  // Rows to drop are sliced off; zeros to add are the convolution's own padding (no padded copy
  // of the gradient is stored: the kernels read the padding as zeros).
  std::vector<int64_t> trim_before(sr), trim_after(sr), pad_before(sr), pad_after(sr);
  for (int d = 0; d < sr; ++d) {
    trim_before[d] = std::min<int64_t>(before[d], 0),
    pad_before[d] = std::max<int64_t>(before[d], 0);
    trim_after[d] = std::min<int64_t>(after[d], 0), pad_after[d] = std::max<int64_t>(after[d], 0);
  }
  up = pad_or_trim(o, up, trim_before, trim_after);
  // [O, Cg, K...] -> [G * Cg, Og, K...], flipped: each group's weight transposed.
  std::vector<int64_t> split = ws.vector();
  split[0] = og;
  split.insert(split.begin(), groups);
  V wt = o.reshape(w, Shape(split));
  std::vector<int> perm = iota_perm(r + 1);
  std::swap(perm[1], perm[2]);
  wt = o.permute(wt, perm);
  std::vector<int64_t> merged = ws.vector();
  merged[0] = groups * cg;
  merged[1] = og;
  wt = o.reshape(wt, Shape(merged));
  std::vector<int> spatial(sr);
  std::iota(spatial.begin(), spatial.end(), 2);
  wt = o.flip(wt, spatial);
  ConvAttrs t{std::vector<int64_t>(sr, 1), pad_before, pad_after, a.dilation, a.groups};
  return o.conv(up, wt, t);
}

// How many slices of the batch the weight gradient sums: its reduction runs over the batch and
// the output pixels (N * OS terms per weight), too long for one product to keep a GPU busy or to
// split over CPU cores. Each slice of at least kMinTerms terms becomes a group of its own; the
// slices' products are then summed. 1 when the batch does not split evenly.
inline int64_t batch_slices(int64_t n, int64_t pixels) {
  constexpr int64_t kMinTerms = 2048;
  int64_t best = 1;
  for (int64_t s = 2; s <= n; ++s) {
    if (n % s == 0 && (n / s) * pixels >= kMinTerms) best = s;
  }
  return best;
}

// How many parts the weight gradient splits the output rows (first spatial dim) into: each part
// a convolution of its own over the input rows it reads, the parts' results added before the
// slices are. A GPU runs one block per tile of each slice; a weight gradient has few tiles per
// slice (conv_block_train's: 9), so the blocks come in units of a whole slice's reduction and the
// last wave may leave most SMs idle (H200: 288 blocks, one per SM, 2.18 waves). Parts make the
// units finer (the independent convolutions run side by side in a CUDA graph). Parts divide the
// rows evenly (the parts inside the input share a kernel; the first and last may differ in their
// padding) and keep at least kMinPartTerms terms of reduction each. EMBER_CONV_WGRAD_PARTS=n asks
// for n parts where the rows allow (1: none).
inline int64_t row_parts(int64_t slice_terms, int64_t rows) {
  constexpr int64_t kMinPartTerms = 512;
  static const int64_t asked = [] {
    const char* env = std::getenv("EMBER_CONV_WGRAD_PARTS");
    return env == nullptr ? int64_t{2} : std::max<int64_t>(1, std::atoll(env));
  }();
  for (int64_t p = std::min(asked, rows); p > 1; --p) {
    if (rows % p == 0 && slice_terms / p >= kMinPartTerms) return p;
  }
  return 1;
}

// The weight gradient's convolution before its slices are summed: [Cg, S * O, K...]. The batch
// becomes the channels and the output gradient the kernel: a convolution with stride and dilation
// exchanged, one group per group of the forward and slice of the batch (batch_slices).
template <class Ops, class V>
V weight_grad_per_slice(Ops& o, V x, V gy, const ConvAttrs& a, const std::vector<int64_t>& kernel,
                        int64_t slices) {
  const Shape xs = o.shape(x), ys = o.shape(gy);
  const int r = xs.rank(), sr = r - 2;
  const int64_t n = xs[0], groups = a.groups, cg = xs[1] / groups, out_ch = ys[1];
  const int64_t nc = n / slices;
  // Only the input the forward read: padded to exactly the extent the kernel and strides cover.
  ConvAttrs t{a.dilation, a.pad_before, std::vector<int64_t>(sr, 0), a.stride,
              static_cast<int>(slices * groups)};
  std::vector<int64_t> none(sr, 0), trim(sr, 0);
  for (int d = 0; d < sr; ++d) {
    const int64_t need = (kernel[d] - 1) * a.dilation[d] + a.stride[d] * (ys[d + 2] - 1) + 1;
    const int64_t after = need - xs[d + 2] - a.pad_before[d];
    if (after >= 0)
      t.pad_after[d] = after;
    else
      trim[d] = after;
  }
  x = pad_or_trim(o, x, none, trim);
  const Shape trimmed = o.shape(x);
  const std::vector<int64_t> spatial(trimmed.dims.begin() + 2, trimmed.dims.end());
  // x [S * Nc, G * Cg, sp...] -> [Cg, S * G * Nc, sp...]: channel (s, g, j) of batch c holds
  // x[s * Nc + j, g * Cg + c].
  std::vector<int64_t> split{slices, nc, groups, cg};
  split.insert(split.end(), spatial.begin(), spatial.end());
  std::vector<int> perm{3, 0, 2, 1};
  for (int d = 0; d < sr; ++d) perm.push_back(4 + d);
  V xt = o.permute(o.reshape(x, Shape(split)), perm);
  std::vector<int64_t> merged{cg, slices * groups * nc};
  merged.insert(merged.end(), spatial.begin(), spatial.end());
  xt = o.reshape(xt, Shape(merged));
  // gy [S * Nc, O, OS...] -> [S * O, Nc, OS...]: output channel (s, o) of the kernel.
  std::vector<int64_t> ysplit{slices, nc, out_ch};
  ysplit.insert(ysplit.end(), ys.dims.begin() + 2, ys.dims.end());
  std::vector<int> yperm{0, 2, 1};
  for (int d = 0; d < sr; ++d) yperm.push_back(3 + d);
  V wt = o.permute(o.reshape(gy, Shape(ysplit)), yperm);
  std::vector<int64_t> ymerged{slices * out_ch, nc};
  ymerged.insert(ymerged.end(), ys.dims.begin() + 2, ys.dims.end());
  wt = o.reshape(wt, Shape(ymerged));
  return o.conv(xt, wt, t);
}

// Part [r0, r0 + rows) of the output rows (first spatial dim) as a problem of its own: the output
// gradient's rows and the input rows they read, the padding before them where they start above
// the input.
// The input rows [lo, hi) that output rows [r0, r0 + rows) read, and the first row read (negative
// in the padding above the input).
struct RowSpan {
  int64_t first, lo, hi;
};
inline RowSpan rows_read(const ConvAttrs& a, const std::vector<int64_t>& kernel, int64_t height,
                         int64_t r0, int64_t rows) {
  const int64_t first = r0 * a.stride[0] - a.pad_before[0];
  const int64_t last = (r0 + rows - 1) * a.stride[0] - a.pad_before[0] +
                       (kernel[0] - 1) * a.dilation[0];  // inclusive
  return {first, std::max<int64_t>(first, 0), std::min<int64_t>(last + 1, height)};
}

template <class Ops, class V>
V weight_grad_rows(Ops& o, V x, V gy, ConvAttrs a, const std::vector<int64_t>& kernel,
                   int64_t slices, int64_t r0, int64_t rows) {
  const Shape xs = o.shape(x), ys = o.shape(gy);
  const auto [first, lo, hi] = rows_read(a, kernel, xs[2], r0, rows);
  std::vector<int64_t> starts(xs.rank(), 0), counts = xs.vector();
  starts[2] = lo, counts[2] = hi - lo;
  x = o.slice(x, starts, counts);
  std::vector<int64_t> ystarts(ys.rank(), 0), ycounts = ys.vector();
  ystarts[2] = r0, ycounts[2] = rows;
  gy = o.slice(gy, ystarts, ycounts);
  a.pad_before[0] = lo - first;
  return weight_grad_per_slice(o, x, gy, a, kernel, slices);
}

// d conv(x, w, a) / d w for the output gradient gy [N, O, *OS]: [O, C / groups, *kernel], the
// sum over the batch's slices and the rows' parts of weight_grad_per_slice.
template <class Ops, class V>
V weight_grad(Ops& o, V x, V gy, const ConvAttrs& a, const std::vector<int64_t>& kernel) {
  const Shape xs = o.shape(x), ys = o.shape(gy);
  const int r = xs.rank();
  const int64_t n = xs[0], cg = xs[1] / a.groups, out_ch = ys[1];
  int64_t pixels = 1;
  for (int d = 2; d < r; ++d) pixels *= ys[d];
  const int64_t slices = batch_slices(n, pixels);
  int64_t parts = row_parts(n / slices * pixels, ys[2]), rows = ys[2] / parts;
  // A part that reads only padding (padding wider than the kernel's reach) stays whole.
  for (int64_t p = 0; p < parts; ++p) {
    const RowSpan span = rows_read(a, kernel, xs[2], p * rows, rows);
    if (span.hi <= span.lo) {
      parts = 1, rows = ys[2];
      break;
    }
  }
  V gw = parts == 1 ? weight_grad_per_slice(o, x, gy, a, kernel, slices)
                    : weight_grad_rows(o, x, gy, a, kernel, slices, 0, rows);
  for (int64_t p = 1; p < parts; ++p)
    gw = o.add(gw, weight_grad_rows(o, x, gy, a, kernel, slices, p * rows, rows));
  if (slices > 1) {
    std::vector<int64_t> per_slice{cg, slices, out_ch};
    per_slice.insert(per_slice.end(), kernel.begin(), kernel.end());
    gw = o.sum(o.reshape(gw, Shape(per_slice)), 1);
    std::vector<int64_t> summed{cg, out_ch};
    summed.insert(summed.end(), kernel.begin(), kernel.end());
    gw = o.reshape(gw, Shape(summed));
  }
  std::vector<int> swap01 = iota_perm(r);
  std::swap(swap01[0], swap01[1]);
  return o.permute(gw, swap01);
}

}  // namespace ember::ir::conv_compose
