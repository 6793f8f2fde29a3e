#include "nn/position_encoding.h"

#include <cmath>
#include <vector>

namespace ember::nn {
namespace {

// Checks that positions [start, start + seq) of x [..., seq, d_model] fit a table of `rows`.
void check_positions(const char* layer, const RawTensor& x, int64_t d_model, int64_t start,
                     int64_t rows) {
  detail::check_min_rank(layer, x, 2, "[..., seq, d_model]");
  detail::check_dim_size(layer, x, -1, d_model, "features (d_model)");
  const int64_t seq = x.shape()[x.rank() - 2];
  if (start < 0 || start + seq > rows) {
    detail::throw_layer_error(layer, "positions " + std::to_string(start) + ".." +
                                         std::to_string(start + seq) + " exceed the table of " +
                                         std::to_string(rows) + " positions (input " +
                                         x.type().to_string() + ")");
  }
}

}  // namespace

Tensor<3> PositionalEncoding::forward(const Tensor<3>& x) const {
  Tensor<2> table = sinusoids.value();
  check_positions("PositionalEncoding", x.raw(), table.shape()[1], 0, table.shape()[0]);
  Tensor<2> rows = table.narrow(0, 0, x.shape()[1]);
  return x + rows.cast(x.dtype()).unsqueeze<3>();
}

PositionalEncoding PositionalEncodingConfig::init(const Device& device) const {
  detail::check_positive("PositionalEncodingConfig", "d_model", static_cast<double>(d_model));
  detail::check_positive("PositionalEncodingConfig", "max_sequence_size",
                         static_cast<double>(max_sequence_size));
  if (d_model % 2 != 0) {
    detail::throw_layer_error("PositionalEncodingConfig",
                              "d_model must be even, got " + std::to_string(d_model));
  }
  std::vector<float> v(static_cast<size_t>(max_sequence_size * d_model));
  for (int64_t pos = 0; pos < max_sequence_size; ++pos) {
    for (int64_t i = 0; i < d_model; i += 2) {
      const double angle = pos / std::pow(max_timescale, static_cast<double>(i) / d_model);
      v[pos * d_model + i] = static_cast<float>(std::sin(angle));
      v[pos * d_model + i + 1] = static_cast<float>(std::cos(angle));
    }
  }
  PositionalEncoding p;
  p.sinusoids = Buffer<Tensor<2>>(
      Tensor<2>::from_data(TensorData(v, Shape{max_sequence_size, d_model}), device));
  return p;
}

template <int D>
Tensor<D> RotaryEncoding::forward(const Tensor<D>& x, int64_t start) const {
  check_positions("RotaryEncoding", x.raw(), d_model(), start, cos.shape()[0]);
  const Shape& s = x.shape();
  const int64_t seq = s[D - 2], half = d_model() / 2;
  // Pairs in a trailing dim of 2: [..., seq, d/2, 2]; the tables broadcast as [seq, d/2, 1].
  Shape pairs = s;
  pairs[D - 1] = half;
  std::vector<int64_t> dims = pairs.vector();
  dims.push_back(2);
  Tensor<D + 1> p = x.template reshape<D + 1>(Shape(dims));
  Tensor<D + 1> a = p.narrow(D, 0, 1), b = p.narrow(D, 1, 1);
  auto table = [&](const Buffer<Tensor<2>>& t) {
    return t.value()
        .narrow(0, start, seq)
        .cast(x.dtype())
        .template unsqueeze_dim<3>(2)
        .template unsqueeze<D + 1>();
  };
  Tensor<D + 1> c = table(cos), sn = table(sin);
  return Tensor<D + 1>::cat({a * c - b * sn, a * sn + b * c}, D).template reshape<D>(s);
}
template Tensor<3> RotaryEncoding::forward(const Tensor<3>&, int64_t) const;
template Tensor<4> RotaryEncoding::forward(const Tensor<4>&, int64_t) const;

RotaryEncoding RotaryEncodingConfig::init(const Device& device) const {
  detail::check_positive("RotaryEncodingConfig", "d_model", static_cast<double>(d_model));
  detail::check_positive("RotaryEncodingConfig", "max_sequence_length",
                         static_cast<double>(max_sequence_length));
  if (d_model % 2 != 0) {
    detail::throw_layer_error("RotaryEncodingConfig",
                              "d_model must be even, got " + std::to_string(d_model));
  }
  const int64_t half = d_model / 2;
  std::vector<float> c(static_cast<size_t>(max_sequence_length * half)), s(c.size());
  for (int64_t pos = 0; pos < max_sequence_length; ++pos) {
    for (int64_t i = 0; i < half; ++i) {
      const double angle = pos * std::pow(theta, -2.0 * i / d_model);
      c[pos * half + i] = static_cast<float>(std::cos(angle));
      s[pos * half + i] = static_cast<float>(std::sin(angle));
    }
  }
  const Shape shape{max_sequence_length, half};
  return {Buffer<Tensor<2>>(Tensor<2>::from_data(TensorData(c, shape), device)),
          Buffer<Tensor<2>>(Tensor<2>::from_data(TensorData(s, shape), device))};
}

}  // namespace ember::nn
