#pragma once
// Transposed convolution and the weight gradient of a convolution, written as forward
// convolutions (Conv is the only convolution primitive). Templates over the recording interface
// so that the VJP rules (ir::Builder on value ids) and the frontend's conv_transpose (taped
// tensors) compose them the same way. `Ops` provides, for its value type V:
//   Shape shape(V); V reshape(V, Shape); V permute(V, perm); V flip(V, axes);
//   V pad(V, before, after) (zeros); V slice(V, starts, counts) (unit steps);
//   V conv(V x, V w, const ConvAttrs&).
#include <cstdint>
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
  up = pad_or_trim(o, up, before, after);
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
  ConvAttrs t{std::vector<int64_t>(sr, 1), std::vector<int64_t>(sr, 0), std::vector<int64_t>(sr, 0),
              a.dilation, a.groups};
  return o.conv(up, wt, t);
}

// d conv(x, w, a) / d w for the output gradient gy [N, O, *OS]: [O, C / groups, *kernel]. The
// batch becomes the channels and the output gradient the kernel: a convolution with stride and
// dilation exchanged, one group per group of the forward.
template <class Ops, class V>
V weight_grad(Ops& o, V x, V gy, const ConvAttrs& a, const std::vector<int64_t>& kernel) {
  const Shape xs = o.shape(x), ys = o.shape(gy);
  const int r = xs.rank(), sr = r - 2;
  const int64_t n = xs[0], groups = a.groups, cg = xs[1] / groups;
  // Only the input the forward read: padded to exactly the extent the kernel and strides cover.
  ConvAttrs t{a.dilation, a.pad_before, std::vector<int64_t>(sr, 0), a.stride, a.groups};
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
  // x [N, C, S...] -> [Cg, G * N, S...] (channel g * N + n of batch c holds x[n, g * Cg + c]).
  std::vector<int64_t> split = o.shape(x).vector();
  split[1] = cg;
  split.insert(split.begin() + 1, groups);
  V xt = o.reshape(x, Shape(split));
  std::vector<int> perm = iota_perm(r + 1);
  std::swap(perm[0], perm[2]);
  xt = o.permute(xt, perm);
  std::vector<int64_t> merged = o.shape(x).vector();
  merged[0] = cg;
  merged[1] = groups * n;
  xt = o.reshape(xt, Shape(merged));
  std::vector<int> swap01 = iota_perm(r);
  std::swap(swap01[0], swap01[1]);
  V gw = o.conv(xt, o.permute(gy, swap01), t);  // [Cg, O, K...]
  return o.permute(gw, swap01);
}

}  // namespace ember::ir::conv_compose
