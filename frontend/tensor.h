#pragma once
// Tensor<D, K>: the user-facing tensor of rank D and kind K (Float, Int, Bool). A cheap shared
// handle to an immutable, lazily computed value. Every method records primitives; reading data
// is what runs them. Method names and meanings follow the Burn Book's tensor chapter.
#include <array>
#include <concepts>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "frontend/autodiff.h"
#include "frontend/kind.h"
#include "frontend/ops.h"
#include "frontend/print.h"

namespace ember {

template <int D, class K = Float>
class Tensor;

namespace detail {
[[noreturn]] void throw_wrong_rank(int expected, const Shape& got, const char* where);
[[noreturn]] void throw_wrong_kind(const char* kind, DType got, const char* where);
[[noreturn]] void throw_not_scalar(const Shape& s);
RawTensor raw_from_data(const TensorData& d, const Device& dev);
RawTensor raw_from_bytes(std::span<const std::byte> bytes, DType dtype, const Shape& shape,
                         const Device& dev);
// Converts a fixed-size list of dims to a vector.
template <size_t N>
std::vector<int64_t> dims_vec(const int64_t (&dims)[N]) {
  return std::vector<int64_t>(dims, dims + N);
}
}  // namespace detail

template <int D, class K>
class Tensor {
  static_assert(D >= 1, "tensors have rank >= 1");

 public:
  using Kind = K;
  static constexpr int kRank = D;

  Tensor() = default;
  // Wraps a rank-erased tensor; throws ember::Error when its rank is not D or its dtype is not of
  // kind K.
  explicit Tensor(RawTensor t) : Tensor(std::move(t), "Tensor") {}
  // The same, naming `op` in the error.
  Tensor(RawTensor t, const char* op) : t_(std::move(t)) {
    if (t_.rank() != D) detail::throw_wrong_rank(D, t_.shape(), op);
    if (!K::accepts(t_.dtype())) detail::throw_wrong_kind(K::kName, t_.dtype(), op);
  }

  // ---------------------------------------------------------------- creation
  static Tensor from_data(const TensorData& data, const Device& dev = Device::default_device()) {
    // Converted only when the kind does not take the dtype: an accepted one uploads straight
    // from `data` (no host copy of every loaded checkpoint tensor and uploaded batch).
    if (!K::accepts(data.dtype())) return from_data(data.convert(K::kDefault), dev);
    if (data.shape().rank() != D) detail::throw_wrong_rank(D, data.shape(), "from_data");
    return Tensor(prim_from_data(data, dev));
  }
  // From elements of `dtype` in row-major order at `bytes` (numel * dtype size of them), copied
  // onto the device without a host copy first (a mapped checkpoint's tensors; LibTorch's
  // from_blob, but copied). Throws ember::Error when the size, rank or kind does not fit.
  static Tensor from_bytes(std::span<const std::byte> bytes, DType dtype, const Shape& shape,
                           const Device& dev = Device::default_device()) {
    if (shape.rank() != D) detail::throw_wrong_rank(D, shape, "from_bytes");
    if (!K::accepts(dtype)) {
      TensorData d(dtype, shape, std::vector<std::byte>(bytes.begin(), bytes.end()));
      return from_data(d.convert(K::kDefault), dev);
    }
    return Tensor(detail::raw_from_bytes(bytes, dtype, shape, dev));
  }
  static Tensor from_data(NestedList<typename K::Elem, D> list,
                          const Device& dev = Device::default_device()) {
    std::vector<int64_t> shape;
    std::vector<typename K::Elem> values;
    detail::flatten_nested<typename K::Elem, D>(list, 0, shape, values);
    return from_data(TensorData(values, Shape(shape)).convert(K::kDefault), dev);
  }
  static Tensor from_floats(
      NestedList<double, D> list,
      const Device& dev = Device::default_device()) requires std::same_as<K, Float> {
    return from_data(list, dev);
  }
  static Tensor from_ints(
      NestedList<int64_t, D> list,
      const Device& dev = Device::default_device()) requires std::same_as<K, Int> {
    return from_data(list, dev);
  }
  static Tensor from_bool(
      NestedList<bool, D> list,
      const Device& dev = Device::default_device()) requires std::same_as<K, Bool> {
    return from_data(list, dev);
  }
  static Tensor from_primitive(RawTensor t) { return Tensor(std::move(t)); }

  static Tensor full(const Shape& shape, Scalar value, const Device& dev = Device::default_device(),
                     DType dtype = K::kDefault) {
    check_rank(shape, "full");
    return Tensor(ops::full(shape, value, dtype, dev));
  }
  static Tensor zeros(const Shape& shape, const Device& dev = Device::default_device(),
                      DType dtype = K::kDefault) {
    check_rank(shape, "zeros");
    return Tensor(ops::zeros(shape, dtype, dev));
  }
  static Tensor ones(const Shape& shape, const Device& dev = Device::default_device(),
                     DType dtype = K::kDefault) {
    check_rank(shape, "ones");
    return Tensor(ops::ones(shape, dtype, dev));
  }
  // Contents unspecified (Ember gives zeros).
  static Tensor empty(const Shape& shape, const Device& dev = Device::default_device()) {
    return zeros(shape, dev);
  }
  static Tensor eye(int64_t size,
                    const Device& dev = Device::default_device()) requires(D == 2 &&
                                                                           !std::same_as<K, Bool>) {
    return Tensor(ops::eye(size, K::kDefault, dev));
  }
  static Tensor arange(
      int64_t start, int64_t end,
      const Device& dev = Device::default_device()) requires(D == 1 && std::same_as<K, Int>) {
    return Tensor(ops::arange(start, end, 1, K::kDefault, dev));
  }
  static Tensor arange_step(
      int64_t start, int64_t end, int64_t step,
      const Device& dev = Device::default_device()) requires(D == 1 && std::same_as<K, Int>) {
    return Tensor(ops::arange(start, end, step, K::kDefault, dev));
  }
  static Tensor random(
      const Shape& shape, const Distribution& dist,
      const Device& dev = Device::default_device()) requires(!std::same_as<K, Bool>) {
    check_rank(shape, "random");
    return Tensor(ops::random(shape, dist, K::kDefault, dev));
  }
  static Tensor int_random(
      const Shape& shape, const Distribution& dist,
      const Device& dev = Device::default_device()) requires std::same_as<K, Int> {
    return random(shape, dist, dev);
  }
  static Tensor tril_mask(
      const Shape& shape, int64_t diagonal,
      const Device& dev = Device::default_device()) requires std::same_as<K, Bool> {
    check_rank(shape, "tril_mask");
    return Tensor(ops::tril_mask(shape, diagonal, dev));
  }
  static Tensor triu_mask(
      const Shape& shape, int64_t diagonal,
      const Device& dev = Device::default_device()) requires std::same_as<K, Bool> {
    check_rank(shape, "triu_mask");
    return Tensor(ops::triu_mask(shape, diagonal, dev));
  }
  static Tensor diag_mask(
      const Shape& shape, int64_t diagonal,
      const Device& dev = Device::default_device()) requires std::same_as<K, Bool> {
    check_rank(shape, "diag_mask");
    return Tensor(ops::diag_mask(shape, diagonal, dev));
  }
  // Coordinates of every position of a D-dim grid: shape [..shape, D].
  static Tensor<D + 1, Int> cartesian_grid(
      const Shape& shape,
      const Device& dev = Device::default_device()) requires std::same_as<K, Int> {
    check_rank(shape, "cartesian_grid");
    return Tensor<D + 1, Int>(ops::cartesian_grid(shape, K::kDefault, dev));
  }
  static Tensor cat(const std::vector<Tensor>& xs, int64_t dim) {
    return Tensor(ops::cat(raws(xs), dim));
  }
  static Tensor<D + 1, K> stack(const std::vector<Tensor>& xs, int64_t dim) {
    return Tensor<D + 1, K>(ops::stack(raws(xs), dim));
  }

  Tensor zeros_like() const { return Tensor(ops::zeros(shape(), dtype(), device())); }
  Tensor ones_like() const { return Tensor(ops::ones(shape(), dtype(), device())); }
  Tensor full_like(Scalar v) const { return Tensor(ops::full(shape(), v, dtype(), device())); }
  Tensor random_like(const Distribution& dist) const requires(!std::same_as<K, Bool>) {
    return Tensor(ops::random(shape(), dist, dtype(), device()));
  }

  // ---------------------------------------------------------------- information and data
  Shape shape() const { return t_.shape(); }
  std::array<int64_t, D> dims() const {
    std::array<int64_t, D> d;
    for (int i = 0; i < D; ++i) d[i] = t_.shape()[i];
    return d;
  }
  DType dtype() const { return t_.dtype(); }
  Device device() const { return t_.device(); }
  int64_t num_elements() const { return t_.shape().numel(); }
  TensorData to_data() const { return t_.to_data(); }
  // See RawTensor::host_bytes.
  std::optional<std::span<const std::byte>> host_bytes() const { return t_.host_bytes(); }
  TensorData into_data() const { return t_.to_data(); }
  // The single element (throws unless the tensor has exactly one).
  template <class T = typename K::Elem>
  T into_scalar() const {
    if (num_elements() != 1) detail::throw_not_scalar(shape());
    return to_data().template to_vec<T>()[0];
  }
  Tensor to_device(const Device& dev) const { return Tensor(ops::to_device(t_, dev)); }
  const RawTensor& raw() const { return t_; }
  RawTensor into_primitive() const { return t_; }
  std::string to_string(std::optional<int> precision = std::nullopt) const {
    return format_tensor(t_, K::kName, precision);
  }

  // ---------------------------------------------------------------- autodiff (autodiff.h)
  // This tensor as a tracked leaf: backward() reports its gradient.
  Tensor require_grad() const requires std::same_as<K, Float> {
    return Tensor(ember::require_grad(t_));
  }
  Tensor set_require_grad(bool on) const requires std::same_as<K, Float> {
    return on ? require_grad() : detach();
  }
  bool is_require_grad() const { return ember::is_require_grad(t_); }
  // The same value, no longer tracked: gradients stop here.
  Tensor detach() const { return Tensor(t_.detached()); }
  // Gradients of this tensor (of its sum when it has several elements) with respect to the
  // tracked leaves it was computed from; recorded lazily like any op.
  Gradients backward(
      std::optional<Checkpointing> policy = std::nullopt) const requires std::same_as<K, Float> {
    return ember::backward(t_, policy);
  }
  // This leaf's gradient in `grads`, if the differentiated value depends on it.
  std::optional<Tensor> grad(const Gradients& grads) const requires std::same_as<K, Float> {
    return wrap_optional(grads.get(t_));
  }
  std::optional<Tensor> grad_remove(Gradients& grads) const requires std::same_as<K, Float> {
    return wrap_optional(grads.remove(t_));
  }

  // ---------------------------------------------------------------- shape and layout
  template <size_t N>
  Tensor<static_cast<int>(N), K> reshape(const int64_t (&dims)[N]) const {
    return Tensor<static_cast<int>(N), K>(ops::reshape(t_, detail::dims_vec(dims)), "reshape");
  }
  template <int D2>
  Tensor<D2, K> reshape(const Shape& shape) const {
    return Tensor<D2, K>(ops::reshape(t_, shape.vector()), "reshape");
  }
  Tensor permute(const std::array<int64_t, D>& axes) const {
    return Tensor(ops::permute(t_, std::vector<int64_t>(axes.begin(), axes.end())));
  }
  Tensor movedim(int64_t src, int64_t dst) const { return Tensor(ops::movedim(t_, {src}, {dst})); }
  Tensor movedim(const std::vector<int64_t>& src, const std::vector<int64_t>& dst) const {
    return Tensor(ops::movedim(t_, src, dst));
  }
  Tensor swap_dims(int64_t a, int64_t b) const { return Tensor(ops::swap_dims(t_, a, b)); }
  Tensor transpose() const { return Tensor(ops::transpose(t_)); }
  Tensor flip(const std::vector<int64_t>& axes) const { return Tensor(ops::flip(t_, axes)); }
  template <size_t N>
  Tensor<static_cast<int>(N), K> expand(const int64_t (&dims)[N]) const {
    return Tensor<static_cast<int>(N), K>(ops::expand(t_, detail::dims_vec(dims)), "expand");
  }
  template <int D2>
  Tensor<D2, K> expand(const Shape& shape) const {
    return Tensor<D2, K>(ops::expand(t_, shape.vector()), "expand");
  }
  template <int D2>
  Tensor<D2, K> flatten(int64_t start, int64_t end) const {
    return Tensor<D2, K>(ops::flatten(t_, start, end), "flatten");
  }
  template <int D2 = D - 1>
  Tensor<D2, K> squeeze(int64_t dim) const {
    return Tensor<D2, K>(ops::squeeze(t_, dim), "squeeze");
  }
  template <int D2>
  Tensor<D2, K> squeeze_dims(const std::vector<int64_t>& dims) const {
    return Tensor<D2, K>(ops::squeeze_dims(t_, dims), "squeeze_dims");
  }
  template <int D2>
  Tensor<D2, K> unsqueeze() const {
    return Tensor<D2, K>(ops::unsqueeze(t_, D2), "unsqueeze");
  }
  template <int D2 = D + 1>
  Tensor<D2, K> unsqueeze_dim(int64_t dim) const {
    return Tensor<D2, K>(ops::unsqueeze_dim(t_, dim), "unsqueeze_dim");
  }
  template <int D2>
  Tensor<D2, K> unsqueeze_dims(const std::vector<int64_t>& dims) const {
    return Tensor<D2, K>(ops::unsqueeze_dims(t_, dims), "unsqueeze_dims");
  }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const {
    return Tensor(ops::narrow(t_, dim, start, length));
  }
  Tensor slice(const std::vector<Range>& ranges) const { return Tensor(ops::slice(t_, ranges)); }
  Tensor slice_dim(int64_t dim, const Range& range) const {
    return Tensor(ops::slice_dim(t_, dim, range));
  }
  Tensor slice_assign(const std::vector<Range>& ranges, const Tensor& values) const {
    return Tensor(ops::slice_assign(t_, ranges, values.t_));
  }
  Tensor slice_fill(const std::vector<Range>& ranges, Scalar value) const {
    return Tensor(ops::slice_fill(t_, ranges, value));
  }
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim) const {
    return wrap_all(ops::chunk(t_, chunks, dim));
  }
  std::vector<Tensor> split(int64_t split_size, int64_t dim) const {
    return wrap_all(ops::split(t_, split_size, dim));
  }
  std::vector<Tensor> split_with_sizes(const std::vector<int64_t>& sizes, int64_t dim) const {
    return wrap_all(ops::split_with_sizes(t_, sizes, dim));
  }
  Tensor repeat_dim(int64_t dim, int64_t times) const {
    return Tensor(ops::repeat_dim(t_, dim, times));
  }
  Tensor repeat(const std::array<int64_t, D>& sizes) const {
    return Tensor(ops::repeat(t_, std::vector<int64_t>(sizes.begin(), sizes.end())));
  }
  Tensor roll(const std::vector<int64_t>& shifts, const std::vector<int64_t>& dims) const {
    return Tensor(ops::roll(t_, shifts, dims));
  }
  Tensor roll_dim(int64_t shift, int64_t dim) const {
    return Tensor(ops::roll(t_, {shift}, {dim}));
  }
  // (before, after) pairs from the last dim backwards; negative amounts crop.
  Tensor pad(const std::vector<std::pair<int64_t, int64_t>>& pads, Scalar value) const
      requires(!std::same_as<K, Bool>) {
    return Tensor(ops::pad(t_, pads, value));
  }

  // ---------------------------------------------------------------- comparisons
  Tensor<D, Bool> equal(const Tensor& o) const { return cmp(ir::BinaryFn::Eq, o); }
  Tensor<D, Bool> not_equal(const Tensor& o) const { return cmp(ir::BinaryFn::Ne, o); }
  Tensor<D, Bool> greater(const Tensor& o) const { return cmp(ir::BinaryFn::Gt, o); }
  Tensor<D, Bool> greater_equal(const Tensor& o) const { return cmp(ir::BinaryFn::Ge, o); }
  Tensor<D, Bool> lower(const Tensor& o) const { return cmp(ir::BinaryFn::Lt, o); }
  Tensor<D, Bool> lower_equal(const Tensor& o) const { return cmp(ir::BinaryFn::Le, o); }
  Tensor<D, Bool> equal_elem(Scalar s) const { return cmp_s(ir::BinaryFn::Eq, s); }
  Tensor<D, Bool> not_equal_elem(Scalar s) const { return cmp_s(ir::BinaryFn::Ne, s); }
  Tensor<D, Bool> greater_elem(Scalar s) const { return cmp_s(ir::BinaryFn::Gt, s); }
  Tensor<D, Bool> greater_equal_elem(Scalar s) const { return cmp_s(ir::BinaryFn::Ge, s); }
  Tensor<D, Bool> lower_elem(Scalar s) const { return cmp_s(ir::BinaryFn::Lt, s); }
  Tensor<D, Bool> lower_equal_elem(Scalar s) const { return cmp_s(ir::BinaryFn::Le, s); }
  Tensor<1, Bool> all() const { return Tensor<1, Bool>(ops::all(t_)); }
  Tensor<1, Bool> any() const { return Tensor<1, Bool>(ops::any(t_)); }
  Tensor<D, Bool> all_dim(int64_t dim) const { return Tensor<D, Bool>(ops::all_dim(t_, dim)); }
  Tensor<D, Bool> any_dim(int64_t dim) const { return Tensor<D, Bool>(ops::any_dim(t_, dim)); }

  // ---------------------------------------------------------------- numeric
  Tensor add(const Tensor& o) const { return bin(ir::BinaryFn::Add, o); }
  Tensor sub(const Tensor& o) const { return bin(ir::BinaryFn::Sub, o); }
  Tensor mul(const Tensor& o) const { return bin(ir::BinaryFn::Mul, o); }
  Tensor div(const Tensor& o) const { return bin(ir::BinaryFn::Div, o); }
  // Remainder with the sign of the divisor (PyTorch's %).
  Tensor rem(const Tensor& o) const { return bin(ir::BinaryFn::Rem, o); }
  Tensor add_scalar(Scalar s) const { return bin_s(ir::BinaryFn::Add, s); }
  Tensor sub_scalar(Scalar s) const { return bin_s(ir::BinaryFn::Sub, s); }
  Tensor mul_scalar(Scalar s) const { return bin_s(ir::BinaryFn::Mul, s); }
  Tensor div_scalar(Scalar s) const { return bin_s(ir::BinaryFn::Div, s); }
  Tensor rem_scalar(Scalar s) const { return bin_s(ir::BinaryFn::Rem, s); }
  Tensor neg() const requires(!std::same_as<K, Bool>) { return un(ir::UnaryFn::Neg); }
  Tensor abs() const requires(!std::same_as<K, Bool>) { return un(ir::UnaryFn::Abs); }
  Tensor sign() const requires(!std::same_as<K, Bool>) { return un(ir::UnaryFn::Sign); }
  Tensor powf(const Tensor& o) const { return bin(ir::BinaryFn::Pow, o); }
  Tensor powf_scalar(Scalar s) const { return bin_s(ir::BinaryFn::Pow, s); }
  Tensor powi(const Tensor<D, Int>& o) const {
    return Tensor(ops::binary(ir::BinaryFn::Pow, t_, ops::cast(o.raw(), dtype())));
  }
  Tensor powi_scalar(int64_t s) const { return bin_s(ir::BinaryFn::Pow, s); }
  Tensor max_pair(const Tensor& o) const { return bin(ir::BinaryFn::Max, o); }
  Tensor min_pair(const Tensor& o) const { return bin(ir::BinaryFn::Min, o); }
  Tensor clamp(Scalar min, Scalar max) const { return Tensor(ops::clamp(t_, min, max)); }
  Tensor clamp_min(Scalar min) const { return Tensor(ops::clamp(t_, min, std::nullopt)); }
  Tensor clamp_max(Scalar max) const { return Tensor(ops::clamp(t_, std::nullopt, max)); }
  Tensor mask_fill(const Tensor<D, Bool>& mask, Scalar v) const {
    return Tensor(ops::mask_fill(t_, mask.raw(), v));
  }
  Tensor mask_where(const Tensor<D, Bool>& mask, const Tensor& values) const {
    return Tensor(ops::mask_where(t_, mask.raw(), values.t_));
  }
  Tensor<1, Bool> contains_nan() const { return Tensor<1, Bool>(ops::contains_nan(t_)); }
  Tensor<D, Bool> bool_() const { return cmp_s(ir::BinaryFn::Ne, 0); }

  Tensor<1, K> sum() const { return Tensor<1, K>(ops::reduce_all(ir::ReduceFn::Sum, t_)); }
  Tensor<1, K> prod() const { return Tensor<1, K>(ops::reduce_all(ir::ReduceFn::Prod, t_)); }
  Tensor<1, K> max() const { return Tensor<1, K>(ops::reduce_all(ir::ReduceFn::Max, t_)); }
  Tensor<1, K> min() const { return Tensor<1, K>(ops::reduce_all(ir::ReduceFn::Min, t_)); }
  Tensor<1, K> mean() const { return Tensor<1, K>(ops::mean(t_)); }
  Tensor<1, K> max_abs() const { return abs().max(); }
  Tensor sum_dim(int64_t d) const { return Tensor(ops::reduce_dim(ir::ReduceFn::Sum, t_, d)); }
  Tensor prod_dim(int64_t d) const { return Tensor(ops::reduce_dim(ir::ReduceFn::Prod, t_, d)); }
  Tensor max_dim(int64_t d) const { return Tensor(ops::reduce_dim(ir::ReduceFn::Max, t_, d)); }
  Tensor min_dim(int64_t d) const { return Tensor(ops::reduce_dim(ir::ReduceFn::Min, t_, d)); }
  Tensor mean_dim(int64_t d) const { return Tensor(ops::mean_dim(t_, d)); }
  Tensor max_abs_dim(int64_t d) const { return abs().max_dim(d); }
  Tensor<D, Int> argmax(int64_t d) const {
    return Tensor<D, Int>(ops::reduce_dim(ir::ReduceFn::ArgMax, t_, d));
  }
  Tensor<D, Int> argmin(int64_t d) const {
    return Tensor<D, Int>(ops::reduce_dim(ir::ReduceFn::ArgMin, t_, d));
  }
  std::pair<Tensor, Tensor<D, Int>> max_dim_with_indices(int64_t d) const {
    return {max_dim(d), argmax(d)};
  }
  std::pair<Tensor, Tensor<D, Int>> min_dim_with_indices(int64_t d) const {
    return {min_dim(d), argmin(d)};
  }

  Tensor sort(int64_t d) const { return sort_with_indices(d).first; }
  Tensor sort_descending(int64_t d) const { return sort_descending_with_indices(d).first; }
  std::pair<Tensor, Tensor<D, Int>> sort_with_indices(int64_t d) const {
    return wrap_pair(ops::sort_with_indices(t_, d, false));
  }
  std::pair<Tensor, Tensor<D, Int>> sort_descending_with_indices(int64_t d) const {
    return wrap_pair(ops::sort_with_indices(t_, d, true));
  }
  Tensor<D, Int> argsort(int64_t d) const { return sort_with_indices(d).second; }
  Tensor<D, Int> argsort_descending(int64_t d) const {
    return sort_descending_with_indices(d).second;
  }
  Tensor topk(int64_t k, int64_t d) const { return topk_with_indices(k, d).first; }
  std::pair<Tensor, Tensor<D, Int>> topk_with_indices(int64_t k, int64_t d) const {
    return wrap_pair(ops::topk_with_indices(t_, k, d));
  }

  Tensor gather(int64_t dim, const Tensor<D, Int>& index) const {
    return Tensor(ops::gather(t_, dim, index.raw()));
  }
  // Adds `values` at `index` along `dim` (PyTorch's scatter_add).
  Tensor scatter(int64_t dim, const Tensor<D, Int>& index, const Tensor& values) const {
    return Tensor(ops::scatter(t_, dim, index.raw(), values.t_));
  }
  Tensor select(int64_t dim, const Tensor<1, Int>& index) const {
    return Tensor(ops::select(t_, dim, index.raw()));
  }
  // Adds `values` to the slices picked by `index` along `dim`.
  Tensor select_assign(int64_t dim, const Tensor<1, Int>& index, const Tensor& values) const {
    return Tensor(ops::select_assign(t_, dim, index.raw(), values.t_));
  }
  template <int D2 = D + 1>
  Tensor<D2, K> one_hot(int64_t num_classes) const requires(!std::same_as<K, Bool>) {
    return Tensor<D2, K>(ops::one_hot_fill(t_, num_classes, 1, 0, -1, dtype()), "one_hot");
  }
  template <int D2 = D + 1>
  Tensor<D2, K> one_hot_fill(int64_t num_classes, Scalar on, Scalar off, int64_t axis) const
      requires(!std::same_as<K, Bool>) {
    return Tensor<D2, K>(ops::one_hot_fill(t_, num_classes, on, off, axis, dtype()), "one_hot");
  }
  Tensor tril(int64_t diagonal) const { return Tensor(ops::tril(t_, diagonal)); }
  Tensor triu(int64_t diagonal) const { return Tensor(ops::triu(t_, diagonal)); }
  bool all_close(const Tensor& o, double rtol = 1e-5, double atol = 1e-8) const {
    return ops::all_close(t_, o.t_, rtol, atol);
  }

  // ---------------------------------------------------------------- float
  Tensor exp() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Exp); }
  Tensor log() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Log); }
  Tensor log1p() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Log1p); }
  Tensor sqrt() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Sqrt); }
  Tensor sin() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Sin); }
  Tensor cos() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Cos); }
  Tensor tan() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Tan); }
  Tensor tanh() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Tanh); }
  Tensor sinh() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Sinh); }
  Tensor cosh() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Cosh); }
  Tensor erf() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Erf); }
  Tensor floor() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Floor); }
  Tensor ceil() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Ceil); }
  // Half to even, as PyTorch.
  Tensor round() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Round); }
  Tensor recip() const requires std::same_as<K, Float> { return un(ir::UnaryFn::Recip); }
  Tensor<D, Bool> is_nan() const requires std::same_as<K, Float> {
    return Tensor<D, Bool>(ops::unary(ir::UnaryFn::IsNan, t_));
  }
  Tensor<D, Bool> is_inf() const requires std::same_as<K, Float> {
    return Tensor<D, Bool>(ops::unary(ir::UnaryFn::IsInf, t_));
  }
  Tensor<D, Bool> is_finite() const requires std::same_as<K, Float> {
    return Tensor<D, Bool>(ops::is_finite(t_));
  }
  Tensor<D, Bool> is_close(const Tensor& o, double rtol = 1e-5, double atol = 1e-8) const {
    return Tensor<D, Bool>(ops::is_close(t_, o.t_, rtol, atol));
  }
  Tensor matmul(const Tensor& o) const requires(!std::same_as<K, Bool>) {
    return Tensor(ops::matmul(t_, o.t_));
  }
  // Sample variance (n - 1) and population variance (n) along `dim`, which is kept.
  Tensor var(int64_t dim) const requires std::same_as<K, Float> {
    return Tensor(ops::var_mean(t_, dim, 1).first);
  }
  Tensor var_bias(int64_t dim) const requires std::same_as<K, Float> {
    return Tensor(ops::var_mean(t_, dim, 0).first);
  }
  std::pair<Tensor, Tensor> var_mean(int64_t dim) const requires std::same_as<K, Float> {
    auto [v, m] = ops::var_mean(t_, dim, 1);
    return {Tensor(v), Tensor(m)};
  }
  std::pair<Tensor, Tensor> var_mean_bias(int64_t dim) const requires std::same_as<K, Float> {
    auto [v, m] = ops::var_mean(t_, dim, 0);
    return {Tensor(v), Tensor(m)};
  }
  // Converts within the kind (e.g. f32 -> f16 for Float); throws for a dtype of another kind.
  Tensor cast(DType t) const { return Tensor(ops::cast(t_, t)); }
  Tensor to_full_precision() const requires std::same_as<K, Float> { return cast(DType::F32); }
  static Tensor from_full_precision(const Tensor& t, DType dtype) { return t.cast(dtype); }
  Tensor<D, Int> int_() const { return Tensor<D, Int>(ops::cast(t_, Int::kDefault)); }
  Tensor<D, Float> float_() const { return Tensor<D, Float>(ops::cast(t_, Float::kDefault)); }

  // ---------------------------------------------------------------- int
  Tensor bitwise_and(const Tensor& o) const requires std::same_as<K, Int> {
    return bin(ir::BinaryFn::BitAnd, o);
  }
  Tensor bitwise_or(const Tensor& o) const requires std::same_as<K, Int> {
    return bin(ir::BinaryFn::BitOr, o);
  }
  Tensor bitwise_xor(const Tensor& o) const requires std::same_as<K, Int> {
    return bin(ir::BinaryFn::BitXor, o);
  }
  Tensor bitwise_left_shift(const Tensor& o) const requires std::same_as<K, Int> {
    return bin(ir::BinaryFn::Shl, o);
  }
  Tensor bitwise_right_shift(const Tensor& o) const requires std::same_as<K, Int> {
    return bin(ir::BinaryFn::Shr, o);
  }
  Tensor bitwise_and_scalar(int64_t s) const requires std::same_as<K, Int> {
    return bin_s(ir::BinaryFn::BitAnd, s);
  }
  Tensor bitwise_or_scalar(int64_t s) const requires std::same_as<K, Int> {
    return bin_s(ir::BinaryFn::BitOr, s);
  }
  Tensor bitwise_xor_scalar(int64_t s) const requires std::same_as<K, Int> {
    return bin_s(ir::BinaryFn::BitXor, s);
  }
  Tensor bitwise_left_shift_scalar(int64_t s) const requires std::same_as<K, Int> {
    return bin_s(ir::BinaryFn::Shl, s);
  }
  Tensor bitwise_right_shift_scalar(int64_t s) const requires std::same_as<K, Int> {
    return bin_s(ir::BinaryFn::Shr, s);
  }
  Tensor bitwise_not() const requires std::same_as<K, Int> { return un(ir::UnaryFn::BitwiseNot); }

  // ---------------------------------------------------------------- bool
  Tensor bool_and(const Tensor& o) const requires std::same_as<K, Bool> {
    return bin(ir::BinaryFn::LogicalAnd, o);
  }
  Tensor bool_or(const Tensor& o) const requires std::same_as<K, Bool> {
    return bin(ir::BinaryFn::LogicalOr, o);
  }
  Tensor bool_not() const requires std::same_as<K, Bool> { return un(ir::UnaryFn::LogicalNot); }
  // Coordinates of the true elements: shape [count, D]. Runs pending work (data-dependent shape).
  Tensor<2, Int> argwhere() const requires std::same_as<K, Bool> {
    return Tensor<2, Int>(ops::argwhere(t_));
  }
  // One index tensor per dim (PyTorch's nonzero(as_tuple=True)).
  std::vector<Tensor<1, Int>> nonzero() const requires std::same_as<K, Bool> {
    std::vector<Tensor<1, Int>> out;
    for (auto& r : ops::nonzero(t_)) out.emplace_back(std::move(r));
    return out;
  }

 private:
  template <int, class>
  friend class Tensor;

  static void check_rank(const Shape& s, const char* op) {
    if (s.rank() != D) detail::throw_wrong_rank(D, s, op);
  }
  static RawTensor prim_from_data(const TensorData& d, const Device& dev);
  static std::optional<Tensor> wrap_optional(std::optional<RawTensor> t) {
    if (!t) return std::nullopt;
    return Tensor(std::move(*t));
  }
  static std::vector<RawTensor> raws(const std::vector<Tensor>& xs) {
    std::vector<RawTensor> r;
    for (const Tensor& x : xs) r.push_back(x.t_);
    return r;
  }
  static std::vector<Tensor> wrap_all(std::vector<RawTensor> rs) {
    std::vector<Tensor> out;
    for (auto& r : rs) out.emplace_back(std::move(r));
    return out;
  }
  static std::pair<Tensor, Tensor<D, Int>> wrap_pair(ops::TensorPair p) {
    return {Tensor(std::move(p.first)), Tensor<D, Int>(std::move(p.second))};
  }
  Tensor un(ir::UnaryFn fn) const { return Tensor(ops::unary(fn, t_)); }
  Tensor bin(ir::BinaryFn fn, const Tensor& o) const { return Tensor(ops::binary(fn, t_, o.t_)); }
  Tensor bin_s(ir::BinaryFn fn, Scalar s) const { return Tensor(ops::binary_scalar(fn, t_, s)); }
  Tensor<D, Bool> cmp(ir::BinaryFn fn, const Tensor& o) const {
    return Tensor<D, Bool>(ops::binary(fn, t_, o.t_));
  }
  Tensor<D, Bool> cmp_s(ir::BinaryFn fn, Scalar s) const {
    return Tensor<D, Bool>(ops::binary_scalar(fn, t_, s));
  }

  RawTensor t_;
};

template <int D, class K>
RawTensor Tensor<D, K>::prim_from_data(const TensorData& d, const Device& dev) {
  return detail::raw_from_data(d, dev);
}

// ---------------------------------------------------------------- operators
template <int D, class K>
Tensor<D, K> operator+(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return a.add(b);
}
template <int D, class K>
Tensor<D, K> operator-(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return a.sub(b);
}
template <int D, class K>
Tensor<D, K> operator*(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return a.mul(b);
}
template <int D, class K>
Tensor<D, K> operator/(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return a.div(b);
}
template <int D, class K>
Tensor<D, K> operator%(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return a.rem(b);
}
template <int D, class K>
Tensor<D, K> operator+(const Tensor<D, K>& a, Scalar s) {
  return a.add_scalar(s);
}
template <int D, class K>
Tensor<D, K> operator-(const Tensor<D, K>& a, Scalar s) {
  return a.sub_scalar(s);
}
template <int D, class K>
Tensor<D, K> operator*(const Tensor<D, K>& a, Scalar s) {
  return a.mul_scalar(s);
}
template <int D, class K>
Tensor<D, K> operator/(const Tensor<D, K>& a, Scalar s) {
  return a.div_scalar(s);
}
template <int D, class K>
Tensor<D, K> operator%(const Tensor<D, K>& a, Scalar s) {
  return a.rem_scalar(s);
}
template <int D, class K>
Tensor<D, K> operator+(Scalar s, const Tensor<D, K>& a) {
  return a.add_scalar(s);
}
template <int D, class K>
Tensor<D, K> operator*(Scalar s, const Tensor<D, K>& a) {
  return a.mul_scalar(s);
}
template <int D, class K>
Tensor<D, K> operator-(Scalar s, const Tensor<D, K>& a) {
  return Tensor<D, K>(ops::scalar_binary(ir::BinaryFn::Sub, s, a.raw()));
}
template <int D, class K>
Tensor<D, K> operator/(Scalar s, const Tensor<D, K>& a) {
  return Tensor<D, K>(ops::scalar_binary(ir::BinaryFn::Div, s, a.raw()));
}
template <int D, class K>
Tensor<D, K> operator-(const Tensor<D, K>& a) {
  return a.neg();
}

template <int D, class K>
std::ostream& operator<<(std::ostream& os, const Tensor<D, K>& t) {
  return os << format_tensor(t.raw(), K::kName, stream_precision(os));
}

}  // namespace ember
