// The helpers every generated model source starts with (inline: a model uses some of them): the
// importer's rank alignment and broadcasting (ops/helpers.h) and the shape-dependent parts of its
// converters (Reshape's 0 and -1, Flatten, Slice ...), which read the tensors' dims when forward
// runs. Only public frontend calls, so the generated code builds against the installed package
// alone.
#include "import/onnx/codegen/prelude.h"

namespace ember::onnx_import::codegen {

const char* prelude() {
  // Guarded, so that several generated sources can be compiled as one translation unit.
  return R"PRELUDE(#ifndef EMBER_ONNX_GENERATED_PRELUDE
#define EMBER_ONNX_GENERATED_PRELUDE
namespace {

using ember::RawTensor;
using ember::ir::BinaryFn;
using ember::ir::UnaryFn;
namespace ops = ember::ops;

// ONNX broadcasts by aligning trailing dims; the frontend's elementwise ops take equal ranks.
inline RawTensor align(const RawTensor& t, int rank) {
  return t.rank() < rank ? ops::unsqueeze(t, rank) : t;
}

inline RawTensor scalar_like(const RawTensor& like, double v) {
  ember::Scalar s = ember::is_float(like.dtype()) ? ember::Scalar(v)
                                                  : ember::Scalar(static_cast<int64_t>(v));
  if (ember::is_bool(like.dtype())) s = ember::Scalar(static_cast<int64_t>(v != 0));
  return ops::full(ember::Shape::ones(like.rank()), s, like.dtype(), like.device());
}

inline RawTensor bin(BinaryFn fn, const RawTensor& a, const RawTensor& b) {
  int r = std::max(a.rank(), b.rank());
  return ops::binary(fn, align(a, r), align(b, r));
}
inline RawTensor bin(BinaryFn fn, const RawTensor& a, double s) { return bin(fn, a, scalar_like(a, s)); }
inline RawTensor un(UnaryFn fn, const RawTensor& a) { return ops::unary(fn, a); }

inline RawTensor where(const RawTensor& cond, const RawTensor& a, const RawTensor& b) {
  int r = std::max({cond.rank(), a.rank(), b.rank()});
  return ops::mask_where(align(b, r), align(cond, r), align(a, r));
}

// Host values (shapes, scalars) as device tensors: rank 0 as shape [1].
inline RawTensor upload_ints(std::vector<int64_t> v, int, ember::DType dtype, const ember::Device& d) {
  auto n = static_cast<int64_t>(v.size());
  return ops::cast(ember::detail::raw_from_data(ember::TensorData(v, ember::Shape{n}), d), dtype);
}
inline RawTensor upload_floats(std::vector<double> v, int, ember::DType dtype, const ember::Device& d) {
  auto n = static_cast<int64_t>(v.size());
  return ops::cast(ember::detail::raw_from_data(ember::TensorData(v, ember::Shape{n}), d), dtype);
}

// The ONNX dims of a tensor of ONNX rank `rank` (a rank-0 one is held as [1]).
inline std::vector<int64_t> onnx_dims(const RawTensor& x, int rank) {
  return rank == 0 ? std::vector<int64_t>{} : x.shape().vector();
}

inline int64_t numel(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// x under ONNX dims `dims` (rank 0 as [1]); an empty result is made, not viewed (the frontend's
// reshape reads a 0 as "keep this dim").
inline RawTensor reshaped(const RawTensor& x, std::vector<int64_t> dims) {
  if (dims.empty()) dims.push_back(1);
  if (numel(dims) == 0) return ops::zeros(ember::Shape(dims), x.dtype(), x.device());
  return ops::reshape(x, dims);
}

inline RawTensor reshape(const RawTensor& x, int rank, std::vector<int64_t> shape, bool allowzero) {
  std::vector<int64_t> in = onnx_dims(x, rank);
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero && i < in.size()) shape[i] = in[i];
    if (shape[i] == -1) {
      infer = static_cast<int64_t>(i);
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0) shape[infer] = known == 0 ? 0 : numel(in) / known;
  if (numel(shape) != numel(in)) throw ember::Error("Reshape: the element counts differ");
  return reshaped(x, shape);
}

inline RawTensor flatten(const RawTensor& x, int rank, int64_t axis) {
  std::vector<int64_t> dims = onnx_dims(x, rank);
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  return reshaped(x, {outer, numel(dims) / std::max<int64_t>(outer, 1)});
}

// Axes normalised and sorted by the generator.
inline RawTensor squeeze(const RawTensor& x, int rank, const std::vector<int64_t>& axes) {
  std::vector<int64_t> dims = onnx_dims(x, rank), out;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d))) {
      out.push_back(dims[d]);
    } else if (dims[d] != 1) {
      throw ember::Error("Squeeze: a squeezed dim is not 1");
    }
  }
  return reshaped(x, out);
}

inline RawTensor unsqueeze(const RawTensor& x, int rank, const std::vector<int64_t>& axes) {
  std::vector<int64_t> dims = onnx_dims(x, rank), out;
  size_t next = 0;
  for (size_t d = 0; d < dims.size() + axes.size(); ++d) {
    bool listed = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d));
    out.push_back(listed ? 1 : dims.at(next++));
  }
  return reshaped(x, out);
}

// Bidirectional broadcasting to `shape` (the output rank is the larger one).
inline RawTensor expand(const RawTensor& x, int rank, std::vector<int64_t> shape) {
  std::vector<int64_t> dims = onnx_dims(x, rank);
  size_t r = std::max(dims.size(), shape.size());
  dims.insert(dims.begin(), r - dims.size(), 1);
  shape.insert(shape.begin(), r - shape.size(), 1);
  for (size_t d = 0; d < r; ++d) shape[d] = dims[d] == 1 ? shape[d] : dims[d];
  if (r == 0) return x;
  return ops::expand(align(x, static_cast<int>(r)), shape);
}

// ONNX Slice on the given axes (normalised by the generator); negative steps flip first.
inline RawTensor slice(RawTensor x, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                const std::vector<int64_t>& axes, const std::vector<int64_t>& steps) {
  std::vector<ember::Range> ranges(x.rank(), ember::Range::all());
  std::vector<int64_t> flips;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t n = x.shape()[static_cast<int>(axes[i])], start = starts[i], end = ends[i];
    int64_t step = steps[i];
    if (start < 0) start += n;
    if (end < 0) end += n;
    int64_t count;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, n);
      end = std::clamp<int64_t>(end, 0, n);
      count = end > start ? (end - start + step - 1) / step : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, n - 1);
      end = std::clamp<int64_t>(end, -1, n - 1);
      count = start > end ? (start - end - step - 1) / -step : 0;
      start = n - 1 - start;  // in the flipped axis
      step = -step;
      flips.push_back(axes[i]);
    }
    ranges[axes[i]] =
        ember::Range(start, start + std::max<int64_t>(count - 1, 0) * step + (count ? 1 : 0), step);
  }
  if (!flips.empty()) x = ops::flip(x, flips);
  return ops::slice(x, ranges);
}

// NumPy matmul: 1-D operands become a row (left) or column (right) and lose that dim again.
inline RawTensor matmul(RawTensor a, int ra, RawTensor b, int rb) {
  if (ra == 1) a = ops::reshape(a, {1, a.shape()[0]});
  if (rb == 1) b = ops::reshape(b, {b.shape()[0], 1});
  int r = std::max(a.rank(), b.rank());
  RawTensor y = ops::matmul(align(a, r), align(b, r));
  std::vector<int64_t> dims = y.shape().vector();
  if (rb == 1) dims.erase(dims.end() - 1);
  if (ra == 1) dims.erase(dims.end() - (rb == 1 ? 1 : 2));
  return reshaped(y, dims);
}

// Gather along `axis` with indices of ONNX rank `idx_rank` (negative ones count from the end).
inline RawTensor gather(const RawTensor& x, int rank, const RawTensor& index, int idx_rank, int64_t axis) {
  std::vector<int64_t> dims = onnx_dims(x, rank), idims = onnx_dims(index, idx_rank);
  RawTensor i = ops::cast(index, ember::DType::I64);
  i = where(bin(BinaryFn::Lt, i, 0.0), bin(BinaryFn::Add, i, static_cast<double>(dims[axis])), i);
  RawTensor y = ops::select(x, axis, ops::reshape(i, {numel(idims)}));
  std::vector<int64_t> out(dims.begin(), dims.begin() + axis);
  out.insert(out.end(), idims.begin(), idims.end());
  out.insert(out.end(), dims.begin() + axis + 1, dims.end());
  return reshaped(y, out);
}

// Normalised over the dims from `axis` on, statistics in f32 (ONNX's stash_type 1): the result,
// and the mean and inverse standard deviation with the normalised dims kept as 1.
struct LayerNorm {
  RawTensor y, mean, inv_std;
};

inline LayerNorm layer_norm(const RawTensor& x, int64_t axis, double eps, const RawTensor& scale,
                     const RawTensor& bias) {
  bool to_f32 = ember::is_float(x.dtype()) && x.dtype() != ember::DType::F64;
  RawTensor xf = to_f32 ? ops::cast(x, ember::DType::F32) : x;
  std::vector<int64_t> dims = xf.shape().vector();
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  RawTensor flat = ops::reshape(xf, {outer, -1});
  auto [var, mean] = ops::var_mean(flat, 1, 0);
  RawTensor inv = un(UnaryFn::Recip, un(UnaryFn::Sqrt, bin(BinaryFn::Add, var, eps)));
  RawTensor y = ops::reshape(bin(BinaryFn::Mul, bin(BinaryFn::Sub, flat, mean), inv), dims);
  y = bin(BinaryFn::Mul, ops::cast(y, x.dtype()), scale);
  if (bias.defined()) y = bin(BinaryFn::Add, y, bias);
  std::vector<int64_t> kept(dims.begin(), dims.begin() + axis);
  kept.resize(dims.size(), 1);
  return {y, ops::reshape(mean, kept), ops::reshape(inv, kept)};
}

// GatherElements: negative indices count from the end of the axis.
inline RawTensor gather_elements(const RawTensor& x, int64_t axis, const RawTensor& index) {
  RawTensor i = ops::cast(index, ember::DType::I64);
  double n = static_cast<double>(x.shape()[static_cast<int>(axis)]);
  i = where(bin(BinaryFn::Lt, i, 0.0), bin(BinaryFn::Add, i, n), i);
  return ops::gather(x, axis, i);
}

// A per-channel [C] tensor viewed as [1, C, 1, ...] against a rank-`rank` input.
inline RawTensor per_channel(const RawTensor& t, int rank) {
  std::vector<int64_t> view(rank, 1);
  view[1] = t.shape().numel();
  return ops::reshape(t, view);
}

// Inference batch normalisation with the running statistics.
inline RawTensor batch_norm(const RawTensor& x, const RawTensor& scale, const RawTensor& b,
                     const RawTensor& mean, const RawTensor& var, double eps) {
  int r = x.rank();
  RawTensor inv =
      un(UnaryFn::Recip, un(UnaryFn::Sqrt, bin(BinaryFn::Add, per_channel(var, r), eps)));
  RawTensor y = bin(BinaryFn::Mul, bin(BinaryFn::Sub, x, per_channel(mean, r)),
                    bin(BinaryFn::Mul, inv, per_channel(scale, r)));
  return bin(BinaryFn::Add, y, per_channel(b, r));
}

// Reduced over `axes` (normalised and sorted by the generator); a mean divides by their sizes.
// Without keepdims the reduced axes are dropped.
inline RawTensor reduce(RawTensor x, int rank, ember::ir::ReduceFn fn, bool mean,
                 const std::vector<int64_t>& axes, bool keepdims) {
  int64_t count = 1;
  for (int64_t a : axes) {
    count *= x.shape()[static_cast<int>(a)];
    x = ops::reduce_dim(fn, x, a);
  }
  if (mean) x = bin(BinaryFn::Div, x, static_cast<double>(count));
  if (keepdims) return x;
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!std::binary_search(axes.begin(), axes.end(), d)) dims.push_back(x.shape()[d]);
  }
  return reshaped(x, dims);
}

// ArgMax/ArgMin along `axis` as I64; the last extreme is the first one of the flipped axis.
inline RawTensor arg_reduce(const RawTensor& x, int rank, ember::ir::ReduceFn fn, int64_t axis,
                     bool keepdims, bool last) {
  RawTensor y;
  if (last) {
    int64_t n = x.shape()[static_cast<int>(axis)];
    y = ops::cast(ops::reduce_dim(fn, ops::flip(x, {axis}), axis), ember::DType::I64);
    y = bin(BinaryFn::Sub, scalar_like(y, static_cast<double>(n - 1)), y);
  } else {
    y = ops::cast(ops::reduce_dim(fn, x, axis), ember::DType::I64);
  }
  return keepdims ? y : squeeze(y, rank, {axis});
}

// ONNX Split: the given sizes, or `parts` equal pieces (the last may be smaller).
inline std::vector<RawTensor> split(const RawTensor& x, int64_t axis, std::vector<int64_t> sizes,
                             int64_t parts) {
  if (sizes.empty()) {
    int64_t n = x.shape()[static_cast<int>(axis)], each = (n + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::min(each, n - i * each));
  }
  return ops::split_with_sizes(x, sizes, axis);
}

// start, start + delta, ... below limit, in `dtype`.
inline RawTensor range(double start, double limit, double delta, ember::DType dtype,
                const ember::Device& device) {
  auto n = std::max<int64_t>(static_cast<int64_t>(std::ceil((limit - start) / delta)), 0);
  ember::DType wide = ember::is_float(dtype) ? ember::DType::F64 : ember::DType::I64;
  RawTensor i = ops::arange(0, n, 1, wide, device);
  return ops::cast(bin(BinaryFn::Add, bin(BinaryFn::Mul, i, delta), start), dtype);
}

// C's fmod (the dividend's sign) from the remainder, which takes the divisor's sign.
inline RawTensor trunc_mod(const RawTensor& a, const RawTensor& b) {
  RawTensor r = bin(BinaryFn::Rem, a, b);
  RawTensor zero = scalar_like(r, 0);
  RawTensor fix = bin(BinaryFn::LogicalAnd, bin(BinaryFn::Ne, r, zero),
                      bin(BinaryFn::Ne, bin(BinaryFn::Lt, r, zero), bin(BinaryFn::Lt, a, zero)));
  return where(fix, bin(BinaryFn::Sub, r, b), r);
}

// A conv or pool window over the spatial dims (from 2); auto_pad resolved by `resolve`.
struct Window {
  std::vector<int64_t> kernel, stride, dilation, begin, end;
};

// SAME_UPPER/SAME_LOWER pads for the input's spatial dims (known when forward runs); VALID: none.
inline Window resolve(Window w, const RawTensor& x, const std::string& autopad) {
  size_t n = w.kernel.size();
  if (autopad == "VALID") w.begin = w.end = std::vector<int64_t>(n, 0);
  if (autopad != "SAME_UPPER" && autopad != "SAME_LOWER") return w;
  for (size_t d = 0; d < n; ++d) {
    int64_t in = x.shape()[static_cast<int>(d + 2)];
    int64_t out = (in + w.stride[d] - 1) / w.stride[d];
    int64_t span = (w.kernel[d] - 1) * w.dilation[d] + 1;
    int64_t total = std::max<int64_t>((out - 1) * w.stride[d] + span - in, 0);
    w.begin[d] = autopad == "SAME_UPPER" ? total / 2 : total - total / 2;
    w.end[d] = total - w.begin[d];
  }
  return w;
}

// x padded by the window's pads with `value`; the frontend's ops pad symmetrically only.
inline RawTensor pad_spatial(const RawTensor& x, const Window& w, double value) {
  std::vector<std::pair<int64_t, int64_t>> p;
  for (size_t i = w.begin.size(); i-- > 0;) p.push_back({w.begin[i], w.end[i]});
  ember::Scalar s = ember::is_float(x.dtype()) ? ember::Scalar(value)
                                               : ember::Scalar(static_cast<int64_t>(value));
  return ops::pad(x, p, s);
}

inline RawTensor conv(RawTensor x, const RawTensor& weight, const std::optional<RawTensor>& bias,
                      Window w, const std::string& autopad, int64_t groups) {
  if (w.kernel.empty()) {
    std::vector<int64_t> k = weight.shape().vector();
    w.kernel.assign(k.begin() + 2, k.end());
  }
  w = resolve(w, x, autopad);
  std::vector<int64_t> padding = w.begin;
  if (w.begin != w.end) {
    x = pad_spatial(x, w, 0.0);
    padding.assign(w.kernel.size(), 0);
  }
  return ops::conv("Conv", x, weight, bias, ops::ConvArgs{w.stride, padding, w.dilation, groups, {}});
}

// Transposed convolution with no padding, then the pads cropped from the result; an
// output_shape or SAME auto_pad sets the pads (the larger half at the end for SAME_UPPER).
inline RawTensor conv_transpose(const RawTensor& x, const RawTensor& weight,
                                const std::optional<RawTensor>& bias, std::vector<int64_t> kernel,
                                std::vector<int64_t> stride, std::vector<int64_t> dil,
                                std::vector<int64_t> outpad, std::vector<int64_t> pads,
                                const std::vector<int64_t>& wanted, const std::string& autopad,
                                int64_t groups) {
  std::vector<int64_t> xs = x.shape().vector(), ws = weight.shape().vector();
  size_t n = xs.size() - 2;
  if (kernel.empty()) kernel.assign(ws.begin() + 2, ws.end());
  if (stride.empty()) stride.assign(n, 1);
  if (dil.empty()) dil.assign(n, 1);
  if (outpad.empty()) outpad.assign(n, 0);
  if (pads.empty()) pads.assign(2 * n, 0);
  std::vector<int64_t> full(n);
  for (size_t d = 0; d < n; ++d) {
    full[d] = stride[d] * (xs[d + 2] - 1) + outpad[d] + (kernel[d] - 1) * dil[d] + 1;
  }
  if (!wanted.empty() || autopad == "SAME_UPPER" || autopad == "SAME_LOWER") {
    for (size_t d = 0; d < n; ++d) {
      int64_t out = !wanted.empty() ? wanted[wanted.size() - n + d] : xs[d + 2] * stride[d];
      int64_t total = full[d] - out;
      if (total < 0) {  // a larger output than the full convolution: extra positions at the end
        outpad[d] -= total;
        full[d] -= total;
        total = 0;
      }
      pads[d] = autopad == "SAME_LOWER" ? total - total / 2 : total / 2;
      pads[d + n] = total - pads[d];
    }
  }
  ops::ConvArgs args{stride, std::vector<int64_t>(n, 0), dil, groups, outpad};
  RawTensor y = ops::conv_transpose("ConvTranspose", x, weight, bias, args);
  std::vector<ember::Range> crop(y.rank(), ember::Range::all());
  for (size_t d = 0; d < n; ++d) crop[d + 2] = ember::Range(pads[d], full[d] - pads[d + n]);
  return ops::slice(y, crop);
}

// Whether the frontend's pools take the pads as they are: symmetric and at most half the kernel
// (PyTorch's rule); otherwise the input is padded first.
inline bool pool_pads_ok(const Window& w) {
  if (w.begin != w.end) return false;
  for (size_t d = 0; d < w.begin.size(); ++d) {
    if (2 * w.begin[d] > (w.kernel[d] - 1) * w.dilation[d] + 1) return false;
  }
  return true;
}

inline ops::PoolArgs pool_args(const Window& w, bool ceil_mode, bool count_include_pad) {
  std::vector<int64_t> padding = pool_pads_ok(w) ? w.begin : std::vector<int64_t>(w.kernel.size(), 0);
  return ops::PoolArgs{w.kernel, w.stride, padding, w.dilation, ceil_mode, count_include_pad};
}

// The frontend pools floats: integers (exact in f64) go through f64 and back.
inline RawTensor max_pool(RawTensor x, Window w, const std::string& autopad, bool ceil_mode) {
  ember::DType dt = x.dtype();
  if (!ember::is_float(dt)) x = ops::cast(x, ember::DType::F64);
  w = resolve(w, x, autopad);
  if (!pool_pads_ok(w)) x = pad_spatial(x, w, -std::numeric_limits<double>::infinity());
  return ops::cast(ops::max_pool("MaxPool", x, pool_args(w, ceil_mode, false)), dt);
}

// Pads the frontend cannot take: zero-padded sums over the count of elements each window
// averages.
inline RawTensor avg_pool(const RawTensor& x, Window w, const std::string& autopad, bool ceil_mode,
                          bool count_include_pad) {
  w = resolve(w, x, autopad);
  ops::PoolArgs a = pool_args(w, ceil_mode, count_include_pad);
  if (pool_pads_ok(w)) return ops::avg_pool("AveragePool", x, a);
  a.count_include_pad = true;
  RawTensor sum = ops::avg_pool("AveragePool", pad_spatial(x, w, 0.0), a);
  if (count_include_pad) return sum;
  RawTensor ones = pad_spatial(ops::ones(x.shape(), x.dtype(), x.device()), w, 0.0);
  return bin(BinaryFn::Div, sum, ops::avg_pool("AveragePool", ones, a));
}

inline RawTensor global_pool(RawTensor x, bool max) {
  for (int d = 2; d < x.rank(); ++d) {
    x = max ? ops::reduce_dim(ember::ir::ReduceFn::Max, x, d) : ops::mean_dim(x, d);
  }
  return x;
}

// A graph output's host data in its ONNX shape (rank 0 included).
inline ember::TensorData onnx_data(const RawTensor& t, int rank) {
  ember::TensorData d = t.to_data();
  if (rank > 0) return d;
  return ember::TensorData(d.dtype(), ember::Shape{}, d.bytes());
}

// A graph input's tensor from host data (rank 0 as [1]).
inline RawTensor from_onnx_data(const ember::TensorData& d, const ember::Device& device) {
  if (d.shape().rank() > 0) return ember::detail::raw_from_data(d, device);
  return ember::detail::raw_from_data(ember::TensorData(d.dtype(), ember::Shape{1}, d.bytes()),
                                      device);
}

}  // namespace
#endif  // EMBER_ONNX_GENERATED_PRELUDE
)PRELUDE";
}

}  // namespace ember::onnx_import::codegen
