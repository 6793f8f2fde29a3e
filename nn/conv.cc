#include "nn/conv.h"

namespace ember::nn {

namespace detail {

void check_groups(const char* config, int64_t channels_in, int64_t channels_out, int64_t groups) {
  check_positive(config, "groups", static_cast<double>(groups));
  if (channels_in % groups != 0 || channels_out % groups != 0) {
    throw_layer_error(
        config, "channels [" + std::to_string(channels_in) + ", " + std::to_string(channels_out) +
                    "] must both be divisible by groups (" + std::to_string(groups) + ")");
  }
}

void check_all_positive(const char* config, const char* field, const std::vector<int64_t>& v) {
  for (int64_t x : v) check_positive(config, field, static_cast<double>(x));
}

namespace {
template <size_t N>
int64_t product(const std::array<int64_t, N>& a) {
  int64_t p = 1;
  for (int64_t x : a) p *= x;
  return p;
}
template <size_t N>
Shape weight_shape(int64_t a, int64_t b, const std::array<int64_t, N>& kernel) {
  std::vector<int64_t> dims = {a, b};
  dims.insert(dims.end(), kernel.begin(), kernel.end());
  return Shape(dims);
}
}  // namespace

template <size_t N>
Conv<N> make_conv(const char* config, std::array<int64_t, 2> channels,
                  std::array<int64_t, N> kernel, std::array<int64_t, N> stride,
                  std::array<int64_t, N> dilation, int64_t groups, const PaddingConfig<N>& padding,
                  bool bias, const Initializer& init, const Device& device) {
  check_all_positive(config, "channels", {channels[0], channels[1]});
  check_all_positive(config, "kernel_size", as_vector(kernel));
  check_all_positive(config, "stride", as_vector(stride));
  check_all_positive(config, "dilation", as_vector(dilation));
  check_groups(config, channels[0], channels[1], groups);
  check_padding(config, padding, stride);
  // Burn's fans: the inputs and outputs one output (input) position sees through a group.
  const int64_t fan_in = channels[0] / groups * product(kernel);
  const int64_t fan_out = channels[1] / groups * product(kernel);
  Conv<N> c;
  c.weight = init.init_param<Conv<N>::kRank>(
      weight_shape(channels[1], channels[0] / groups, kernel), device, fan_in, fan_out);
  if (bias) c.bias = init.init_param<1>(Shape{channels[1]}, device, fan_in, fan_out);
  c.stride = stride;
  c.kernel_size = kernel;
  c.dilation = dilation;
  c.groups = groups;
  c.padding = padding;
  return c;
}

template <size_t N>
ConvTranspose<N> make_conv_transpose(const char* config, std::array<int64_t, 2> channels,
                                     std::array<int64_t, N> kernel, std::array<int64_t, N> stride,
                                     std::array<int64_t, N> dilation,
                                     std::array<int64_t, N> padding,
                                     std::array<int64_t, N> padding_out, int64_t groups, bool bias,
                                     const Initializer& init, const Device& device) {
  check_all_positive(config, "channels", {channels[0], channels[1]});
  check_all_positive(config, "kernel_size", as_vector(kernel));
  check_all_positive(config, "stride", as_vector(stride));
  check_all_positive(config, "dilation", as_vector(dilation));
  check_groups(config, channels[0], channels[1], groups);
  for (size_t i = 0; i < N; ++i) {
    if (padding[i] < 0) throw_layer_error(config, "padding must not be negative");
    // As PyTorch: the extra output rows must be fewer than the stride or the dilation.
    if (padding_out[i] < 0 || (padding_out[i] >= stride[i] && padding_out[i] >= dilation[i])) {
      throw_layer_error(config, "padding_out (" + std::to_string(padding_out[i]) +
                                    ") must be smaller than the stride or the dilation");
    }
  }
  // Burn's fan_in for transposed convolutions: the outputs of a group times the kernel (the
  // weight's dims after the first, as PyTorch).
  const int64_t fan_in = channels[1] / groups * product(kernel);
  const int64_t fan_out = channels[0] / groups * product(kernel);
  ConvTranspose<N> c;
  c.weight = init.init_param<ConvTranspose<N>::kRank>(
      weight_shape(channels[0], channels[1] / groups, kernel), device, fan_in, fan_out);
  if (bias) c.bias = init.init_param<1>(Shape{channels[1]}, device, fan_in, fan_out);
  c.stride = stride;
  c.kernel_size = kernel;
  c.dilation = dilation;
  c.padding = padding;
  c.padding_out = padding_out;
  c.groups = groups;
  return c;
}

}  // namespace detail

Conv1d Conv1dConfig::init(const Device& device) const {
  return detail::make_conv<1>(config_name(), {channels_in, channels_out}, {kernel_size}, {stride},
                              {dilation}, groups, padding, bias, initializer, device);
}
Conv2d Conv2dConfig::init(const Device& device) const {
  return detail::make_conv<2>(config_name(), channels, kernel_size, stride, dilation, groups,
                              padding, bias, initializer, device);
}
Conv3d Conv3dConfig::init(const Device& device) const {
  return detail::make_conv<3>(config_name(), channels, kernel_size, stride, dilation, groups,
                              padding, bias, initializer, device);
}
ConvTranspose1d ConvTranspose1dConfig::init(const Device& device) const {
  return detail::make_conv_transpose<1>(config_name(), channels, {kernel_size}, {stride},
                                        {dilation}, {padding}, {padding_out}, groups, bias,
                                        initializer, device);
}
ConvTranspose2d ConvTranspose2dConfig::init(const Device& device) const {
  return detail::make_conv_transpose<2>(config_name(), channels, kernel_size, stride, dilation,
                                        padding, padding_out, groups, bias, initializer, device);
}
ConvTranspose3d ConvTranspose3dConfig::init(const Device& device) const {
  return detail::make_conv_transpose<3>(config_name(), channels, kernel_size, stride, dilation,
                                        padding, padding_out, groups, bias, initializer, device);
}

}  // namespace ember::nn
