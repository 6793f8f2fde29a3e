// Shape and layout ops: all views or data movement, lowered to reshape/permute/expand/slice/
// flip/pad/concat.
#include <algorithm>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/detail/primitives.h"
#include "frontend/ops.h"
#include "ir/builder.h"

namespace ember::ops {
namespace {

[[noreturn]] void fail(const char* op, const std::string& msg) {
  throw Error(absl::StrCat(op, ": ", msg));
}

std::string dims_text(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// Resolves a Range against a dim of `size`: start, count and positive step, plus whether the
// selection is walked backwards.
struct ResolvedRange {
  int64_t start, count, step;
  bool reversed;
};

ResolvedRange resolve(const Range& r, int64_t size, int dim, const Shape& shape) {
  auto where = [&] { return absl::StrCat(" for dim ", dim, " of ", shape.to_string()); };
  if (r.step == 0) fail("slice", "step must not be 0" + where());
  if (r.step == std::numeric_limits<int64_t>::min()) {
    fail("slice", absl::StrCat("step ", r.step, " out of range", where()));
  }
  int64_t start = r.start < 0 ? r.start + size : r.start;
  int64_t end = r.end.has_value() ? (*r.end < 0 ? *r.end + size : *r.end) : size;
  if (start < 0 || start > size || end < 0 || end > size) {
    fail("slice", absl::StrCat("range ", r.start, "..", r.end ? absl::StrCat(*r.end) : "",
                               " out of bounds", where()));
  }
  int64_t step = r.step < 0 ? -r.step : r.step;
  int64_t len = std::max<int64_t>(0, end - start);
  int64_t count = len == 0 ? 0 : (len - 1) / step + 1;  // no overflow for huge steps
  if (r.step > 0 || count == 0) return {start, count, step, false};
  // Backwards from the last element of [start, end).
  int64_t last = count == 0 ? start : end - 1;
  return {last - (count - 1) * step, count, step, true};
}

std::vector<Range> full_ranges(const std::vector<Range>& ranges, int rank, const char* op) {
  if (static_cast<int>(ranges.size()) > rank) {
    fail(op, absl::StrCat(ranges.size(), " ranges given for a rank-", rank, " tensor"));
  }
  std::vector<Range> out = ranges;
  out.resize(rank, Range::all());
  return out;
}

// Spreads x along `dim` so element i lands at i * step, zeros between (a strided scatter made of
// views: unsqueeze, pad, reshape, slice).
RawTensor dilate(const RawTensor& x, int dim, int64_t step, ir::Scalar fill) {
  if (step == 1 || x.shape()[dim] == 0) return x;
  Shape s = x.shape();
  int64_t n = s[dim];
  std::vector<int64_t> with_axis = s.vector();
  with_axis.insert(with_axis.begin() + dim + 1, 1);
  RawTensor y = prim::reshape(x, Shape(with_axis));
  std::vector<int64_t> before(with_axis.size(), 0), after(with_axis.size(), 0);
  after[dim + 1] = step - 1;
  y = prim::pad(y, before, after, fill);
  Shape flat = s;
  flat[dim] = n * step;
  y = prim::reshape(y, flat);
  std::vector<int64_t> starts(s.rank(), 0), steps(s.rank(), 1);
  Shape keep = flat;
  keep[dim] = (n - 1) * step + 1;
  return prim::slice(y, starts, keep.vector(), steps);
}

}  // namespace

RawTensor reshape(const RawTensor& x, const std::vector<int64_t>& dims) {
  ir::OpScope scope("reshape");
  std::vector<int64_t> out = dims;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && static_cast<int>(i) < x.rank()) out[i] = x.shape()[i];
    if (out[i] == -1) {
      if (infer >= 0) fail("reshape", "only one dim may be -1 in " + dims_text(dims));
      infer = static_cast<int>(i);
    } else if (out[i] < 0) {
      fail("reshape", "negative size in " + dims_text(dims));
    } else if (__builtin_mul_overflow(known, out[i], &known)) {
      fail("reshape", absl::StrCat(dims_text(dims), " has more elements than int64 can count"));
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.shape().numel() % known != 0) {
      fail("reshape",
           absl::StrCat("cannot reshape ", x.shape().to_string(), " to ", dims_text(dims)));
    }
    out[infer] = x.shape().numel() / known;
  }
  return prim::reshape(x, Shape(out));
}

RawTensor permute(const RawTensor& x, const std::vector<int64_t>& axes) {
  ir::OpScope scope("permute");
  if (static_cast<int>(axes.size()) != x.rank()) {
    fail("permute",
         absl::StrCat(dims_text(axes), " has ", axes.size(), " axes for ", x.shape().to_string()));
  }
  std::vector<int> perm;
  for (int64_t a : axes) perm.push_back(normalize_dim(a, x.rank(), "permute"));
  return prim::permute(x, perm);
}

RawTensor movedim(const RawTensor& x, const std::vector<int64_t>& src,
                  const std::vector<int64_t>& dst) {
  if (src.size() != dst.size()) fail("movedim", "source and destination lengths differ");
  int r = x.rank();
  std::vector<int64_t> perm(r, -1);
  std::vector<bool> used(r, false);
  for (size_t i = 0; i < src.size(); ++i) {
    int s = normalize_dim(src[i], r, "movedim"), d = normalize_dim(dst[i], r, "movedim");
    if (perm[d] != -1 || used[s]) fail("movedim", "repeated dim");
    perm[d] = s;
    used[s] = true;
  }
  int next = 0;
  for (int d = 0; d < r; ++d) {
    if (perm[d] != -1) continue;
    while (used[next]) ++next;
    perm[d] = next;
    used[next] = true;
  }
  return permute(x, perm);
}

RawTensor swap_dims(const RawTensor& x, int64_t a, int64_t b) {
  int r = x.rank();
  std::vector<int64_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[normalize_dim(a, r, "swap_dims")], perm[normalize_dim(b, r, "swap_dims")]);
  return permute(x, perm);
}

RawTensor transpose(const RawTensor& x) {
  if (x.rank() < 2) return x;
  return swap_dims(x, -2, -1);
}

RawTensor flip(const RawTensor& x, const std::vector<int64_t>& axes) {
  std::vector<int> ax;
  for (int64_t a : axes) ax.push_back(normalize_dim(a, x.rank(), "flip"));
  return prim::flip(x, ax);
}

RawTensor expand(const RawTensor& x, const std::vector<int64_t>& dims) {
  ir::OpScope scope("expand");
  int r = static_cast<int>(dims.size());
  if (r < x.rank()) {
    fail("expand",
         absl::StrCat("cannot expand ", x.shape().to_string(), " to fewer dims ", dims_text(dims)));
  }
  RawTensor y = unsqueeze(x, r);
  std::vector<int64_t> target = dims;
  int added = r - x.rank();
  for (int d = 0; d < r; ++d) {
    if (target[d] == -1 && d < added) {
      fail("expand",
           absl::StrCat("-1 is not allowed for the new leading dim ", d, " in ", dims_text(dims)));
    }
    if (target[d] == -1) target[d] = y.shape()[d];
  }
  return prim::expand(y, Shape(target));
}

RawTensor flatten(const RawTensor& x, int64_t start, int64_t end) {
  int r = x.rank();
  int s = normalize_dim(start, r, "flatten"), e = normalize_dim(end, r, "flatten");
  if (s > e) fail("flatten", absl::StrCat("start dim ", start, " after end dim ", end));
  std::vector<int64_t> out(x.shape().dims.begin(), x.shape().dims.begin() + s);
  int64_t n = 1;
  for (int d = s; d <= e; ++d) n *= x.shape()[d];
  out.push_back(n);
  out.insert(out.end(), x.shape().dims.begin() + e + 1, x.shape().dims.end());
  return prim::reshape(x, Shape(out));
}

RawTensor squeeze(const RawTensor& x, int64_t dim) {
  int d = normalize_dim(dim, x.rank(), "squeeze");
  if (x.shape()[d] != 1) {
    fail("squeeze", absl::StrCat("dim ", dim, " of ", x.shape().to_string(), " is not 1"));
  }
  std::vector<int64_t> out = x.shape().vector();
  out.erase(out.begin() + d);
  return prim::reshape(x, Shape(out));
}

RawTensor squeeze_dims(const RawTensor& x, const std::vector<int64_t>& dims) {
  std::vector<bool> drop(x.rank(), false);
  if (dims.empty()) {
    for (int d = 0; d < x.rank(); ++d) drop[d] = x.shape()[d] == 1;
  }
  for (int64_t dim : dims) {
    int d = normalize_dim(dim, x.rank(), "squeeze_dims");
    if (x.shape()[d] != 1) {
      fail("squeeze_dims", absl::StrCat("dim ", dim, " of ", x.shape().to_string(), " is not 1"));
    }
    drop[d] = true;
  }
  std::vector<int64_t> out;
  for (int d = 0; d < x.rank(); ++d) {
    if (!drop[d]) out.push_back(x.shape()[d]);
  }
  return prim::reshape(x, Shape(out));
}

RawTensor unsqueeze(const RawTensor& x, int rank) {
  if (rank < x.rank()) {
    fail("unsqueeze",
         absl::StrCat("target rank ", rank, " below the rank of ", x.shape().to_string()));
  }
  std::vector<int64_t> out(rank - x.rank(), 1);
  out.insert(out.end(), x.shape().dims.begin(), x.shape().dims.end());
  return prim::reshape(x, Shape(out));
}

RawTensor unsqueeze_dim(const RawTensor& x, int64_t dim) {
  int d = normalize_dim(dim, x.rank() + 1, "unsqueeze_dim");
  std::vector<int64_t> out = x.shape().vector();
  out.insert(out.begin() + d, 1);
  return prim::reshape(x, Shape(out));
}

RawTensor unsqueeze_dims(const RawTensor& x, const std::vector<int64_t>& dims) {
  int r = x.rank() + static_cast<int>(dims.size());
  std::vector<bool> is_new(r, false);
  for (int64_t dim : dims) {
    int d = normalize_dim(dim, r, "unsqueeze_dims");
    if (is_new[d]) fail("unsqueeze_dims", "repeated dim " + dims_text(dims));
    is_new[d] = true;
  }
  std::vector<int64_t> out;
  int next = 0;
  for (int d = 0; d < r; ++d) out.push_back(is_new[d] ? 1 : x.shape()[next++]);
  return prim::reshape(x, Shape(out));
}

RawTensor narrow(const RawTensor& x, int64_t dim, int64_t start, int64_t length) {
  int d = normalize_dim(dim, x.rank(), "narrow");
  int64_t size = x.shape()[d];
  int64_t s = start < 0 ? start + size : start;
  if (s < 0 || length < 0 || s + length > size) {
    fail("narrow", absl::StrCat("start ", start, " length ", length, " out of range for dim ", dim,
                                " of ", x.shape().to_string()));
  }
  return slice_dim(x, d, Range(s, s + length));
}

RawTensor slice(const RawTensor& x, const std::vector<Range>& ranges) {
  ir::OpScope scope("slice");
  int r = x.rank();
  std::vector<Range> rs = full_ranges(ranges, r, "slice");
  std::vector<int64_t> starts(r), counts(r), steps(r);
  std::vector<int> reversed;
  for (int d = 0; d < r; ++d) {
    ResolvedRange rr = resolve(rs[d], x.shape()[d], d, x.shape());
    starts[d] = rr.start;
    counts[d] = rr.count;
    steps[d] = rr.step;
    if (rr.reversed) reversed.push_back(d);
  }
  RawTensor y = prim::slice(x, starts, counts, steps);
  return reversed.empty() ? y : prim::flip(y, reversed);
}

RawTensor slice_dim(const RawTensor& x, int64_t dim, const Range& range) {
  int d = normalize_dim(dim, x.rank(), "slice_dim");
  std::vector<Range> ranges(x.rank(), Range::all());
  ranges[d] = range;
  return slice(x, ranges);
}

// Builds a copy of `values` placed at the sliced positions of a tensor shaped like `x`, plus a
// mask that is true exactly there; both by dilating and padding (no scatter needed).
static std::pair<RawTensor, RawTensor> place(const RawTensor& x, const std::vector<Range>& ranges,
                                             const RawTensor& values, const char* op) {
  int r = x.rank();
  std::vector<Range> rs = full_ranges(ranges, r, op);
  RawTensor v = values;
  RawTensor mask = prim::full(values.shape(), DType::Bool, ir::Scalar::from_int(1), x.device());
  std::vector<int64_t> before(r, 0), after(r, 0);
  std::vector<int> reversed;
  for (int d = 0; d < r; ++d) {
    ResolvedRange rr = resolve(rs[d], x.shape()[d], d, x.shape());
    if (values.shape()[d] != rr.count) {
      fail(op, absl::StrCat("values ", values.shape().to_string(), " do not fit the ", rr.count,
                            " selected elements of dim ", d, " of ", x.shape().to_string()));
    }
    if (rr.reversed) reversed.push_back(d);
    if (rr.count == 0) continue;
    before[d] = rr.start;
    after[d] = x.shape()[d] - (rr.start + (rr.count - 1) * rr.step + 1);
  }
  if (!reversed.empty()) v = prim::flip(v, reversed);
  for (int d = 0; d < r; ++d) {
    ResolvedRange rr = resolve(rs[d], x.shape()[d], d, x.shape());
    v = dilate(v, d, rr.step, ir::Scalar::from_int(0));
    mask = dilate(mask, d, rr.step, ir::Scalar::from_int(0));
  }
  if (values.shape().numel() == 0) {
    // Nothing is assigned: an all-false mask of x's shape.
    mask = prim::full(x.shape(), DType::Bool, ir::Scalar::from_int(0), x.device());
    return {x, mask};
  }
  v = prim::pad(v, before, after, ir::Scalar::from_int(0));
  mask = prim::pad(mask, before, after, ir::Scalar::from_int(0));
  return {v, mask};
}

RawTensor slice_assign(const RawTensor& x, const std::vector<Range>& ranges,
                       const RawTensor& values) {
  ir::OpScope scope("slice_assign");
  if (values.rank() != x.rank() || values.dtype() != x.dtype()) {
    fail("slice_assign", absl::StrCat("values ", values.type().to_string(), " do not match ",
                                      x.type().to_string()));
  }
  auto [placed, mask] = place(x, ranges, values, "slice_assign");
  return prim::where(mask, placed, x);
}

RawTensor slice_fill(const RawTensor& x, const std::vector<Range>& ranges, Scalar value) {
  ir::OpScope scope("slice_fill");
  // The shape of the selection, then a mask placed like slice_assign's.
  RawTensor sel = slice(x, ranges);
  RawTensor fill = prim::full(sel.shape(), x.dtype(), value.ir(), x.device());
  auto [placed, mask] = place(x, ranges, fill, "slice_fill");
  return prim::where(mask, placed, x);
}

namespace {

// Inputs per Concat primitive. A kernel binds each stored input: a concatenation of many
// tensors is a tree of narrow ones, which fusion inlines whole where the device binds enough
// buffers and cuts into kernels where it does not (lavapipe binds 32).
constexpr size_t kConcatFanIn = 16;

RawTensor concat_tree(const std::vector<RawTensor>& xs, int axis) {
  if (xs.size() <= kConcatFanIn) return prim::concat(xs, axis);
  std::vector<RawTensor> parts;
  for (size_t i = 0; i < xs.size(); i += kConcatFanIn) {
    size_t end = std::min(xs.size(), i + kConcatFanIn);
    std::vector<RawTensor> group(xs.begin() + static_cast<std::ptrdiff_t>(i),
                                 xs.begin() + static_cast<std::ptrdiff_t>(end));
    parts.push_back(group.size() == 1 ? group[0] : prim::concat(group, axis));
  }
  return concat_tree(parts, axis);
}

}  // namespace

RawTensor cat(const std::vector<RawTensor>& xs, int64_t dim) {
  ir::OpScope scope("cat");
  if (xs.empty()) fail("cat", "needs at least one tensor");
  return concat_tree(xs, normalize_dim(dim, xs[0].rank(), "cat"));
}

RawTensor stack(const std::vector<RawTensor>& xs, int64_t dim) {
  ir::OpScope scope("stack");
  if (xs.empty()) fail("stack", "needs at least one tensor");
  int d = normalize_dim(dim, xs[0].rank() + 1, "stack");
  std::vector<RawTensor> ys;
  for (const RawTensor& x : xs) {
    if (x.shape() != xs[0].shape()) {
      fail("stack", absl::StrCat("shapes differ: ", xs[0].shape().to_string(), " and ",
                                 x.shape().to_string()));
    }
    ys.push_back(unsqueeze_dim(x, d));
  }
  return concat_tree(ys, d);
}

std::vector<RawTensor> split_with_sizes(const RawTensor& x, const std::vector<int64_t>& sizes,
                                        int64_t dim) {
  int d = normalize_dim(dim, x.rank(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) fail("split_with_sizes", "negative size in " + dims_text(sizes));
    total += s;
  }
  if (total != x.shape()[d]) {
    fail("split_with_sizes", absl::StrCat("sizes ", dims_text(sizes), " do not sum to dim ", dim,
                                          " of ", x.shape().to_string()));
  }
  std::vector<RawTensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(slice_dim(x, d, Range(start, start + s)));
    start += s;
  }
  return out;
}

std::vector<RawTensor> split(const RawTensor& x, int64_t split_size, int64_t dim) {
  int d = normalize_dim(dim, x.rank(), "split");
  if (split_size <= 0) fail("split", absl::StrCat("split size must be positive, got ", split_size));
  int64_t n = x.shape()[d];
  std::vector<int64_t> sizes;
  for (int64_t s = 0; s < n; s += split_size) sizes.push_back(std::min(split_size, n - s));
  if (sizes.empty()) sizes.push_back(0);
  return split_with_sizes(x, sizes, d);
}

std::vector<RawTensor> chunk(const RawTensor& x, int64_t chunks, int64_t dim) {
  int d = normalize_dim(dim, x.rank(), "chunk");
  if (chunks <= 0) fail("chunk", absl::StrCat("number of chunks must be positive, got ", chunks));
  int64_t n = x.shape()[d];
  // An empty dim gives `chunks` empty chunks, as PyTorch's chunk does (a split by size could
  // not say how many).
  if (n == 0) return split_with_sizes(x, std::vector<int64_t>(static_cast<size_t>(chunks), 0), d);
  return split(x, std::max<int64_t>(1, (n + chunks - 1) / chunks), d);
}

RawTensor repeat(const RawTensor& x, const std::vector<int64_t>& sizes) {
  ir::OpScope scope("repeat");
  if (static_cast<int>(sizes.size()) != x.rank()) {
    fail("repeat",
         absl::StrCat(dims_text(sizes), " does not match rank of ", x.shape().to_string()));
  }
  // [a, b] repeated [p, q]: view as [1, a, 1, b], expand to [p, a, q, b], reshape to [pa, qb].
  std::vector<int64_t> inter, expanded, out;
  for (int d = 0; d < x.rank(); ++d) {
    if (sizes[d] < 0) fail("repeat", "negative count in " + dims_text(sizes));
    inter.insert(inter.end(), {1, x.shape()[d]});
    expanded.insert(expanded.end(), {sizes[d], x.shape()[d]});
    out.push_back(sizes[d] * x.shape()[d]);
  }
  RawTensor y = prim::reshape(x, Shape(inter));
  y = prim::expand(y, Shape(expanded));
  return prim::reshape(y, Shape(out));
}

RawTensor repeat_dim(const RawTensor& x, int64_t dim, int64_t times) {
  int d = normalize_dim(dim, x.rank(), "repeat_dim");
  std::vector<int64_t> sizes(x.rank(), 1);
  sizes[d] = times;
  return repeat(x, sizes);
}

RawTensor roll(const RawTensor& x, const std::vector<int64_t>& shifts,
               const std::vector<int64_t>& dims) {
  ir::OpScope scope("roll");
  if (shifts.size() != dims.size()) {
    fail("roll", absl::StrCat(shifts.size(), " shifts for ", dims.size(), " dims"));
  }
  RawTensor y = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    int d = normalize_dim(dims[i], x.rank(), "roll");
    int64_t n = x.shape()[d];
    if (n == 0) continue;
    int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    // The last s elements move to the front.
    y = prim::concat({slice_dim(y, d, Range(n - s, n)), slice_dim(y, d, Range(0, n - s))}, d);
  }
  return y;
}

RawTensor pad(const RawTensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads,
              Scalar value) {
  ir::OpScope scope("pad");
  int r = x.rank();
  if (static_cast<int>(pads.size()) > r) {
    fail("pad", absl::StrCat(pads.size(), " pad pairs for ", x.shape().to_string()));
  }
  std::vector<int64_t> before(r, 0), after(r, 0);
  std::vector<Range> crop(r, Range::all());
  bool cropping = false;
  for (size_t i = 0; i < pads.size(); ++i) {
    int d = r - 1 - static_cast<int>(i);
    auto [b, a] = pads[i];
    before[d] = std::max<int64_t>(b, 0);
    after[d] = std::max<int64_t>(a, 0);
    if (b < 0 || a < 0) {
      int64_t n = x.shape()[d];
      int64_t s = b < 0 ? -b : 0, e = a < 0 ? n + a : n;
      if (s > e)
        fail("pad", absl::StrCat("cropping more than dim ", d, " of ", x.shape().to_string()));
      crop[d] = Range(s, e);
      cropping = true;
    }
  }
  RawTensor y = cropping ? slice(x, crop) : x;
  return prim::pad(y, before, after, value.ir());
}

}  // namespace ember::ops
