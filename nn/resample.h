#pragma once
// Resampling modules (Burn's nn::interpolate, nn::unfold, nn::PixelShuffle): Interpolate1d/2d to
// an output size or by a scale factor (output = floor(input * factor), as Burn), Unfold4d (every
// patch as a column) and PixelShuffle ([N, C r^2, H, W] -> [N, C, H r, W r]).
#include <array>
#include <optional>
#include <string>

#include "frontend/module.h"
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/conv.h"
#include "nn/module.h"

namespace ember::nn {

// Burn's interpolate::InterpolateMode (JSON "Nearest", "Linear", "Cubic").
enum class InterpolateMode { Nearest, Linear, Cubic };
const char* interpolate_mode_name(InterpolateMode m);
void to_json(nlohmann::json& j, InterpolateMode m);
void from_json(const nlohmann::json& j, InterpolateMode& m);

namespace detail {
module::InterpolateOptions interpolate_options(InterpolateMode mode, bool align_corners);
std::string optional_text(const std::optional<std::vector<int64_t>>& v);
std::string optional_text(const std::optional<std::vector<double>>& v);
// The output size of one spatial dim: `size` if given, else floor(input * scale).
int64_t resampled_size(const char* layer, int64_t input, std::optional<int64_t> size,
                       std::optional<double> scale);
}  // namespace detail

class Interpolate1d {
 public:
  std::optional<int64_t> output_size;
  std::optional<double> scale_factor;
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;

  // [batch, channels, length] -> [batch, channels, length']
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return detail::batched<1>(
        "Interpolate1d", "[batch, channels, length]", x, [&](const Tensor<3>& xb) {
          int64_t out =
              detail::resampled_size("Interpolate1d", xb.shape()[2], output_size, scale_factor);
          return module::interpolate1d(xb, out, detail::interpolate_options(mode, align_corners));
        });
  }
  void display_attributes(Attributes& a) const {
    a.add("output_size", output_size ? std::to_string(*output_size) : "None")
        .add("scale_factor",
             scale_factor ? Attributes::format_number(*scale_factor) : std::string("None"))
        .add("mode", interpolate_mode_name(mode));
  }
  EMBER_MODULE(Interpolate1d)
};

class Interpolate2d {
 public:
  std::optional<std::array<int64_t, 2>> output_size;
  std::optional<std::array<double, 2>> scale_factor;
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;

  // [batch, channels, height, width] -> [batch, channels, height', width']
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return detail::batched<2>(
        "Interpolate2d", "[batch, channels, height, width]", x, [&](const Tensor<4>& xb) {
          std::array<int64_t, 2> out;
          for (int i = 0; i < 2; ++i) {
            out[i] = detail::resampled_size(
                "Interpolate2d", xb.shape()[2 + i],
                output_size ? std::optional<int64_t>((*output_size)[i]) : std::nullopt,
                scale_factor ? std::optional<double>((*scale_factor)[i]) : std::nullopt);
          }
          return module::interpolate(xb, out, detail::interpolate_options(mode, align_corners));
        });
  }
  void display_attributes(Attributes& a) const {
    std::optional<std::vector<int64_t>> os;
    std::optional<std::vector<double>> sf;
    if (output_size) os = std::vector<int64_t>(output_size->begin(), output_size->end());
    if (scale_factor) sf = std::vector<double>(scale_factor->begin(), scale_factor->end());
    a.add("output_size", detail::optional_text(os))
        .add("scale_factor", detail::optional_text(sf))
        .add("mode", interpolate_mode_name(mode));
  }
  EMBER_MODULE(Interpolate2d)
};

struct Interpolate1dConfig {
  std::optional<int64_t> output_size;
  std::optional<double> scale_factor;
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;
  Interpolate1dConfig() = default;
  Interpolate1d init() const;
  EMBER_CONFIG(Interpolate1dConfig, output_size, scale_factor, mode, align_corners)
};

struct Interpolate2dConfig {
  std::optional<std::array<int64_t, 2>> output_size;
  std::optional<std::array<double, 2>> scale_factor;
  InterpolateMode mode = InterpolateMode::Nearest;
  bool align_corners = false;
  Interpolate2dConfig() = default;
  Interpolate2d init() const;
  EMBER_CONFIG(Interpolate2dConfig, output_size, scale_factor, mode, align_corners)
};

// Unfold4d: [batch, channels, height, width] -> [batch, channels * kh * kw, patches].
class Unfold4d {
 public:
  std::array<int64_t, 2> kernel_size{};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  std::array<int64_t, 2> padding{0, 0};

  Tensor<3> forward(const Tensor<4>& x) const {
    module::UnfoldOptions o;
    o.stride = stride;
    o.dilation = dilation;
    o.padding = padding;
    return module::unfold4d(x, kernel_size, o);
  }
  void display_attributes(Attributes& a) const {
    a.add("kernel_size", detail::as_vector(kernel_size))
        .add("stride", detail::as_vector(stride))
        .add("dilation", detail::as_vector(dilation))
        .add("padding", detail::as_vector(padding));
  }
  EMBER_MODULE(Unfold4d)
};

struct Unfold4dConfig {
  std::array<int64_t, 2> kernel_size{};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  std::array<int64_t, 2> padding{0, 0};
  explicit Unfold4dConfig(std::array<int64_t, 2> kernel_size) : kernel_size(kernel_size) {}
  Unfold4d init() const;
  EMBER_CONFIG(Unfold4dConfig, kernel_size, stride, dilation, padding)
};

// PixelShuffle: [batch, channels * r^2, height, width] -> [batch, channels, height r, width r].
class PixelShuffle {
 public:
  int64_t upscale_factor = 1;

  Tensor<4> forward(const Tensor<4>& x) const {
    int64_t r2 = upscale_factor * upscale_factor;
    if (x.shape()[1] % r2 != 0) {
      detail::throw_layer_error("PixelShuffle", "expects channels divisible by upscale_factor^2 (" +
                                                    std::to_string(r2) + "), got " +
                                                    x.raw().type().to_string());
    }
    return module::pixel_shuffle(x, upscale_factor);
  }
  EMBER_MODULE(PixelShuffle, upscale_factor)
};

struct PixelShuffleConfig {
  int64_t upscale_factor = 1;
  explicit PixelShuffleConfig(int64_t upscale_factor) : upscale_factor(upscale_factor) {}
  PixelShuffle init() const;
  EMBER_CONFIG(PixelShuffleConfig, upscale_factor)
};

}  // namespace ember::nn
