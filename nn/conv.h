#pragma once
// Convolutions (Burn's nn::conv): Conv1d/2d/3d with weight [out, in / groups, kernel...] and
// ConvTranspose1d/2d/3d with weight [in, out / groups, kernel...], each with an optional bias
// [out], calling ember::module's functional ops. Input [batch, channels, spatial...], or
// [channels, spatial...] unbatched (as PyTorch).
#include <array>
#include <cmath>
#include <optional>
#include <string>

#include "frontend/module.h"
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/initializer.h"
#include "nn/module.h"
#include "nn/padding.h"

namespace ember::nn {

template <size_t N>
class ConvTranspose;

namespace detail {

template <size_t N>
struct ConvNames;
template <>
struct ConvNames<1> {
  static constexpr const char* conv = "Conv1d";
  static constexpr const char* transpose = "ConvTranspose1d";
  static constexpr const char* layout = "[batch, channels, length]";
};
template <>
struct ConvNames<2> {
  static constexpr const char* conv = "Conv2d";
  static constexpr const char* transpose = "ConvTranspose2d";
  static constexpr const char* layout = "[batch, channels, height, width]";
};
template <>
struct ConvNames<3> {
  static constexpr const char* conv = "Conv3d";
  static constexpr const char* transpose = "ConvTranspose3d";
  static constexpr const char* layout = "[batch, channels, depth, height, width]";
};

// Runs f on x [batch, channels, spatial...] (D == N + 2) or on x unsqueezed to a batch of one
// (D == N + 1, the result squeezed back); throws naming `layer` for any other rank.
template <size_t N, int D, class F>
auto batched(const char* layer, const char* layout, const Tensor<D>& x, F&& f) {
  constexpr int B = static_cast<int>(N) + 2;
  if constexpr (D == B) {
    return f(x);
  } else if constexpr (D == B - 1) {
    return f(x.template unsqueeze<B>()).template squeeze<D>(0);
  } else {
    throw_layer_error(layer, "expects an input of rank " + std::to_string(B) + " " + layout +
                                 " or " + std::to_string(B - 1) + " (unbatched), got " +
                                 x.raw().type().to_string());
    return x;
  }
}

void check_groups(const char* config, int64_t channels_in, int64_t channels_out, int64_t groups);
void check_all_positive(const char* config, const char* field, const std::vector<int64_t>& v);

}  // namespace detail

// ---- Conv1d/2d/3d

template <size_t N>
class Conv {
 public:
  static constexpr int kRank = static_cast<int>(N) + 2;
  Param<Tensor<kRank>> weight;           // [channels_out, channels_in / groups, kernel...]
  std::optional<Param<Tensor<1>>> bias;  // [channels_out]
  std::array<int64_t, N> stride{};
  std::array<int64_t, N> kernel_size{};
  std::array<int64_t, N> dilation{};
  int64_t groups = 1;
  PaddingConfig<N> padding = PaddingConfig<N>::valid();

  int64_t channels_in() const { return weight.shape()[1] * groups; }
  int64_t channels_out() const { return weight.shape()[0]; }

  // [batch, channels_in, spatial...] -> [batch, channels_out, spatial'...]
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return detail::batched<N>(name(), detail::ConvNames<N>::layout, x,
                              [&](const Tensor<kRank>& xb) { return forward_batched(xb); });
  }

  void display_attributes(Attributes& a) const {
    a.add("stride", detail::as_vector(stride))
        .add("kernel_size", detail::as_vector(kernel_size))
        .add("dilation", detail::as_vector(dilation))
        .add("groups", groups)
        .add("padding", padding.to_string());
  }
  static constexpr const char* module_name() { return detail::ConvNames<N>::conv; }
  template <class Self, class F>
  static void for_each_field(Self& self, F&& f) {
    f("weight", self.weight);
    f("bias", self.bias);
  }
  EMBER_MODULE_METHODS(Conv)

 private:
  static const char* name() { return detail::ConvNames<N>::conv; }
  Tensor<kRank> forward_batched(const Tensor<kRank>& x) const {
    detail::check_dim_size(name(), x.raw(), 1, channels_in(), "input channels");
    auto pad = detail::resolve_padding(padding, kernel_size, dilation);
    module::ConvOptions<N> o;
    o.stride = stride;
    o.padding = pad.symmetric;
    o.dilation = dilation;
    o.groups = groups;
    std::optional<Tensor<1>> b;
    if (bias) b = bias->val();
    return module::conv(name(), detail::apply_asymmetric(x, pad.asymmetric), weight.val(), b, o);
  }
};

using Conv1d = Conv<1>;
using Conv2d = Conv<2>;
using Conv3d = Conv<3>;

// Burn's default for convolutions: uniform in +-1/sqrt(fan_in), fan_in = in / groups * kernel
// (KaimingUniform with gain 1/sqrt(3)); the bias drawn by the same initializer.
inline Initializer default_conv_initializer() {
  return Initializer::kaiming_uniform(1.0 / std::sqrt(3.0), false);
}

namespace detail {
template <size_t N>
Conv<N> make_conv(const char* config, std::array<int64_t, 2> channels,
                  std::array<int64_t, N> kernel, std::array<int64_t, N> stride,
                  std::array<int64_t, N> dilation, int64_t groups, const PaddingConfig<N>& padding,
                  bool bias, const Initializer& init, const Device& device);
template <size_t N>
ConvTranspose<N> make_conv_transpose(const char* config, std::array<int64_t, 2> channels,
                                     std::array<int64_t, N> kernel, std::array<int64_t, N> stride,
                                     std::array<int64_t, N> dilation,
                                     std::array<int64_t, N> padding,
                                     std::array<int64_t, N> padding_out, int64_t groups, bool bias,
                                     const Initializer& init, const Device& device);
}  // namespace detail

struct Conv1dConfig {
  int64_t channels_in = 0;
  int64_t channels_out = 0;
  int64_t kernel_size = 0;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t groups = 1;
  PaddingConfig1d padding = PaddingConfig1d::valid();
  bool bias = true;
  Initializer initializer = default_conv_initializer();

  Conv1dConfig(int64_t channels_in, int64_t channels_out, int64_t kernel_size)
      : channels_in(channels_in), channels_out(channels_out), kernel_size(kernel_size) {}
  Conv1d init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(Conv1dConfig, channels_in, channels_out, kernel_size, stride, dilation, groups,
               padding, bias, initializer)
};

struct Conv2dConfig {
  std::array<int64_t, 2> channels{};  // [in, out]
  std::array<int64_t, 2> kernel_size{};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  int64_t groups = 1;
  PaddingConfig2d padding = PaddingConfig2d::valid();
  bool bias = true;
  Initializer initializer = default_conv_initializer();

  Conv2dConfig(std::array<int64_t, 2> channels, std::array<int64_t, 2> kernel_size)
      : channels(channels), kernel_size(kernel_size) {}
  Conv2d init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(Conv2dConfig, channels, kernel_size, stride, dilation, groups, padding, bias,
               initializer)
};

struct Conv3dConfig {
  std::array<int64_t, 2> channels{};  // [in, out]
  std::array<int64_t, 3> kernel_size{};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> dilation{1, 1, 1};
  int64_t groups = 1;
  PaddingConfig3d padding = PaddingConfig3d::valid();
  bool bias = true;
  Initializer initializer = default_conv_initializer();

  Conv3dConfig(std::array<int64_t, 2> channels, std::array<int64_t, 3> kernel_size)
      : channels(channels), kernel_size(kernel_size) {}
  Conv3d init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(Conv3dConfig, channels, kernel_size, stride, dilation, groups, padding, bias,
               initializer)
};

// ---- ConvTranspose1d/2d/3d (padding and padding_out are amounts, as Burn's)

template <size_t N>
class ConvTranspose {
 public:
  static constexpr int kRank = static_cast<int>(N) + 2;
  Param<Tensor<kRank>> weight;           // [channels_in, channels_out / groups, kernel...]
  std::optional<Param<Tensor<1>>> bias;  // [channels_out]
  std::array<int64_t, N> stride{};
  std::array<int64_t, N> kernel_size{};
  std::array<int64_t, N> dilation{};
  std::array<int64_t, N> padding{};
  std::array<int64_t, N> padding_out{};
  int64_t groups = 1;

  int64_t channels_in() const { return weight.shape()[0]; }
  int64_t channels_out() const { return weight.shape()[1] * groups; }

  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return detail::batched<N>(name(), detail::ConvNames<N>::layout, x,
                              [&](const Tensor<kRank>& xb) { return forward_batched(xb); });
  }

  void display_attributes(Attributes& a) const {
    a.add("channels", std::vector<int64_t>{channels_in(), channels_out()})
        .add("stride", detail::as_vector(stride))
        .add("kernel_size", detail::as_vector(kernel_size))
        .add("dilation", detail::as_vector(dilation))
        .add("groups", groups)
        .add("padding", detail::as_vector(padding))
        .add("padding_out", detail::as_vector(padding_out));
  }
  static constexpr const char* module_name() { return detail::ConvNames<N>::transpose; }
  template <class Self, class F>
  static void for_each_field(Self& self, F&& f) {
    f("weight", self.weight);
    f("bias", self.bias);
  }
  EMBER_MODULE_METHODS(ConvTranspose)

 private:
  static const char* name() { return detail::ConvNames<N>::transpose; }
  Tensor<kRank> forward_batched(const Tensor<kRank>& x) const {
    detail::check_dim_size(name(), x.raw(), 1, channels_in(), "input channels");
    module::ConvTransposeOptions<N> o;
    o.stride = stride;
    o.padding = padding;
    o.padding_out = padding_out;
    o.dilation = dilation;
    o.groups = groups;
    std::optional<Tensor<1>> b;
    if (bias) b = bias->val();
    return module::conv_transpose(name(), x, weight.val(), b, o);
  }
};

using ConvTranspose1d = ConvTranspose<1>;
using ConvTranspose2d = ConvTranspose<2>;
using ConvTranspose3d = ConvTranspose<3>;

struct ConvTranspose1dConfig {
  std::array<int64_t, 2> channels{};  // [in, out]
  int64_t kernel_size = 0;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t groups = 1;
  int64_t padding = 0;
  int64_t padding_out = 0;
  bool bias = true;
  Initializer initializer = default_conv_initializer();

  ConvTranspose1dConfig(std::array<int64_t, 2> channels, int64_t kernel_size)
      : channels(channels), kernel_size(kernel_size) {}
  ConvTranspose1d init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(ConvTranspose1dConfig, channels, kernel_size, stride, dilation, groups, padding,
               padding_out, bias, initializer)
};

struct ConvTranspose2dConfig {
  std::array<int64_t, 2> channels{};  // [in, out]
  std::array<int64_t, 2> kernel_size{};
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 2> dilation{1, 1};
  int64_t groups = 1;
  std::array<int64_t, 2> padding{0, 0};
  std::array<int64_t, 2> padding_out{0, 0};
  bool bias = true;
  Initializer initializer = default_conv_initializer();

  ConvTranspose2dConfig(std::array<int64_t, 2> channels, std::array<int64_t, 2> kernel_size)
      : channels(channels), kernel_size(kernel_size) {}
  ConvTranspose2d init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(ConvTranspose2dConfig, channels, kernel_size, stride, dilation, groups, padding,
               padding_out, bias, initializer)
};

struct ConvTranspose3dConfig {
  std::array<int64_t, 2> channels{};  // [in, out]
  std::array<int64_t, 3> kernel_size{};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> dilation{1, 1, 1};
  int64_t groups = 1;
  std::array<int64_t, 3> padding{0, 0, 0};
  std::array<int64_t, 3> padding_out{0, 0, 0};
  bool bias = true;
  Initializer initializer = default_conv_initializer();

  ConvTranspose3dConfig(std::array<int64_t, 2> channels, std::array<int64_t, 3> kernel_size)
      : channels(channels), kernel_size(kernel_size) {}
  ConvTranspose3d init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(ConvTranspose3dConfig, channels, kernel_size, stride, dilation, groups, padding,
               padding_out, bias, initializer)
};

}  // namespace ember::nn
