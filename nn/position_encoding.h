#pragma once
// Position encodings: PositionalEncoding adds the fixed sinusoids of "Attention Is All You Need"
// (Burn's nn::PositionalEncoding); RotaryEncoding rotates each pair of features (2i, 2i + 1) by
// position * theta^(-2i / d_model) (RoFormer; Burn's nn::RotaryEncoding).
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/module.h"

namespace ember::nn {

class PositionalEncoding {
 public:
  // [max_sequence_size, d_model]: sin(pos / max_timescale^(i / d_model)) at even i, cos at i + 1
  Buffer<Tensor<2>> sinusoids;

  // [batch, seq, d_model] -> the same shape, seq <= max_sequence_size
  Tensor<3> forward(const Tensor<3>& x) const;
  EMBER_MODULE(PositionalEncoding, sinusoids)
};

struct PositionalEncodingConfig {
  int64_t d_model = 0;
  int64_t max_sequence_size = 5000;
  double max_timescale = 10000;
  explicit PositionalEncodingConfig(int64_t d_model) : d_model(d_model) {}
  PositionalEncoding init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(PositionalEncodingConfig, d_model, max_sequence_size, max_timescale)
};

class RotaryEncoding {
 public:
  Buffer<Tensor<2>> cos, sin;  // [max_sequence_length, d_model / 2]

  int64_t d_model() const { return 2 * cos.shape()[1]; }
  // x [..., seq, d_model] -> the same shape; the first position is `start` (decoding with a
  // cache rotates its new positions from the cache's length).
  template <int D>
  Tensor<D> forward(const Tensor<D>& x, int64_t start = 0) const;
  EMBER_MODULE(RotaryEncoding, cos, sin)
};

struct RotaryEncodingConfig {
  int64_t max_sequence_length = 0;
  int64_t d_model = 0;
  double theta = 10000;
  RotaryEncodingConfig(int64_t max_sequence_length, int64_t d_model)
      : max_sequence_length(max_sequence_length), d_model(d_model) {}
  RotaryEncoding init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(RotaryEncodingConfig, max_sequence_length, d_model, theta)
};

}  // namespace ember::nn
