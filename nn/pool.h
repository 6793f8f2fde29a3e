#pragma once
// Pooling (Burn's nn::pool): MaxPool1d/2d, AvgPool1d/2d (stride defaulting to the kernel size,
// padding Valid, Same with stride 1 and an odd kernel, or Explicit; ceil_mode; average pooling's
// count_include_pad) and AdaptiveAvgPool1d/2d. Input [batch, channels, spatial...], or
// [channels, spatial...] unbatched.
#include <array>
#include <string>

#include "frontend/module.h"
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/conv.h"
#include "nn/module.h"
#include "nn/padding.h"

namespace ember::nn {

namespace detail {
template <size_t N>
struct PoolNames;
template <>
struct PoolNames<1> {
  static constexpr const char* max = "MaxPool1d";
  static constexpr const char* avg = "AvgPool1d";
  static constexpr const char* adaptive_avg = "AdaptiveAvgPool1d";
  static constexpr const char* layout = "[batch, channels, length]";
};
template <>
struct PoolNames<2> {
  static constexpr const char* max = "MaxPool2d";
  static constexpr const char* avg = "AvgPool2d";
  static constexpr const char* adaptive_avg = "AdaptiveAvgPool2d";
  static constexpr const char* layout = "[batch, channels, height, width]";
};

// Checks a pooling config: positive sizes, and Same only with stride 1 and an odd window.
template <size_t N>
void check_pool(const char* config, const std::array<int64_t, N>& kernel,
                const std::array<int64_t, N>& stride, const std::array<int64_t, N>& dilation,
                const PaddingConfig<N>& padding) {
  check_all_positive(config, "kernel_size", as_vector(kernel));
  check_all_positive(config, "stride", as_vector(stride));
  check_all_positive(config, "dilation", as_vector(dilation));
  check_padding(config, padding, stride);
  if (padding.kind() == PaddingConfig<N>::Kind::Same) {
    for (size_t i = 0; i < N; ++i) {
      if (dilation[i] * (kernel[i] - 1) % 2 != 0) {
        throw_layer_error(config,
                          "padding Same needs an odd kernel_size for pooling (as Burn), "
                          "got " +
                              std::to_string(kernel[i]));
      }
    }
  }
}

template <size_t N>
module::PoolOptions<N> pool_options(const std::array<int64_t, N>& kernel,
                                    const std::array<int64_t, N>& stride,
                                    const std::array<int64_t, N>& dilation,
                                    const PaddingConfig<N>& padding, bool ceil_mode) {
  module::PoolOptions<N> o;
  o.stride = stride;
  o.padding = resolve_padding(padding, kernel, dilation).symmetric;
  o.dilation = dilation;
  o.ceil_mode = ceil_mode;
  return o;
}
}  // namespace detail

template <size_t N>
class MaxPool {
 public:
  std::array<int64_t, N> kernel_size{};
  std::array<int64_t, N> stride{};
  PaddingConfig<N> padding = PaddingConfig<N>::valid();
  std::array<int64_t, N> dilation{};
  bool ceil_mode = false;

  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return detail::batched<N>(module_name(), detail::PoolNames<N>::layout, x,
                              [&](const Tensor<static_cast<int>(N) + 2>& xb) {
                                auto o = detail::pool_options(kernel_size, stride, dilation,
                                                              padding, ceil_mode);
                                if constexpr (N == 1) {
                                  return module::max_pool1d(xb, kernel_size, o);
                                } else {
                                  return module::max_pool2d(xb, kernel_size, o);
                                }
                              });
  }
  void display_attributes(Attributes& a) const {
    a.add("kernel_size", detail::as_vector(kernel_size))
        .add("stride", detail::as_vector(stride))
        .add("padding", padding.to_string())
        .add("dilation", detail::as_vector(dilation))
        .add("ceil_mode", ceil_mode);
  }
  static constexpr const char* module_name() { return detail::PoolNames<N>::max; }
  template <class Self, class F>
  static void for_each_field(Self&, F&&) {}
  EMBER_MODULE_METHODS(MaxPool)
};

template <size_t N>
class AvgPool {
 public:
  std::array<int64_t, N> kernel_size{};
  std::array<int64_t, N> stride{};
  PaddingConfig<N> padding = PaddingConfig<N>::valid();
  bool count_include_pad = true;
  bool ceil_mode = false;

  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return detail::batched<N>(module_name(), detail::PoolNames<N>::layout, x,
                              [&](const Tensor<static_cast<int>(N) + 2>& xb) {
                                std::array<int64_t, N> ones;
                                ones.fill(1);
                                auto o = detail::pool_options(kernel_size, stride, ones, padding,
                                                              ceil_mode);
                                o.count_include_pad = count_include_pad;
                                if constexpr (N == 1) {
                                  return module::avg_pool1d(xb, kernel_size, o);
                                } else {
                                  return module::avg_pool2d(xb, kernel_size, o);
                                }
                              });
  }
  void display_attributes(Attributes& a) const {
    a.add("kernel_size", detail::as_vector(kernel_size))
        .add("stride", detail::as_vector(stride))
        .add("padding", padding.to_string())
        .add("count_include_pad", count_include_pad)
        .add("ceil_mode", ceil_mode);
  }
  static constexpr const char* module_name() { return detail::PoolNames<N>::avg; }
  template <class Self, class F>
  static void for_each_field(Self&, F&&) {}
  EMBER_MODULE_METHODS(AvgPool)
};

template <size_t N>
class AdaptiveAvgPool {
 public:
  std::array<int64_t, N> output_size{};

  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return detail::batched<N>(module_name(), detail::PoolNames<N>::layout, x,
                              [&](const Tensor<static_cast<int>(N) + 2>& xb) {
                                if constexpr (N == 1) {
                                  return module::adaptive_avg_pool1d(xb, output_size[0]);
                                } else {
                                  return module::adaptive_avg_pool2d(xb, output_size);
                                }
                              });
  }
  void display_attributes(Attributes& a) const {
    if constexpr (N == 1) {
      a.add("output_size", output_size[0]);
    } else {
      a.add("output_size", detail::as_vector(output_size));
    }
  }
  static constexpr const char* module_name() { return detail::PoolNames<N>::adaptive_avg; }
  template <class Self, class F>
  static void for_each_field(Self&, F&&) {}
  EMBER_MODULE_METHODS(AdaptiveAvgPool)
};

using MaxPool1d = MaxPool<1>;
using MaxPool2d = MaxPool<2>;
using AvgPool1d = AvgPool<1>;
using AvgPool2d = AvgPool<2>;
using AdaptiveAvgPool1d = AdaptiveAvgPool<1>;
using AdaptiveAvgPool2d = AdaptiveAvgPool<2>;

// ---- configs (Burn's field names: 1-D `stride`, 2-D `strides`; both default to the kernel)

struct MaxPool1dConfig {
  int64_t kernel_size = 0;
  int64_t stride = 0;
  PaddingConfig1d padding = PaddingConfig1d::valid();
  int64_t dilation = 1;
  bool ceil_mode = false;
  explicit MaxPool1dConfig(int64_t kernel_size) : kernel_size(kernel_size), stride(kernel_size) {}
  MaxPool1d init() const;
  EMBER_CONFIG(MaxPool1dConfig, kernel_size, stride, padding, dilation, ceil_mode)
};

struct MaxPool2dConfig {
  std::array<int64_t, 2> kernel_size{};
  std::array<int64_t, 2> strides{};
  PaddingConfig2d padding = PaddingConfig2d::valid();
  std::array<int64_t, 2> dilation{1, 1};
  bool ceil_mode = false;
  explicit MaxPool2dConfig(std::array<int64_t, 2> kernel_size)
      : kernel_size(kernel_size), strides(kernel_size) {}
  MaxPool2d init() const;
  EMBER_CONFIG(MaxPool2dConfig, kernel_size, strides, padding, dilation, ceil_mode)
};

struct AvgPool1dConfig {
  int64_t kernel_size = 0;
  int64_t stride = 0;
  PaddingConfig1d padding = PaddingConfig1d::valid();
  bool count_include_pad = true;
  bool ceil_mode = false;
  explicit AvgPool1dConfig(int64_t kernel_size) : kernel_size(kernel_size), stride(kernel_size) {}
  AvgPool1d init() const;
  EMBER_CONFIG(AvgPool1dConfig, kernel_size, stride, padding, count_include_pad, ceil_mode)
};

struct AvgPool2dConfig {
  std::array<int64_t, 2> kernel_size{};
  std::array<int64_t, 2> strides{};
  PaddingConfig2d padding = PaddingConfig2d::valid();
  bool count_include_pad = true;
  bool ceil_mode = false;
  explicit AvgPool2dConfig(std::array<int64_t, 2> kernel_size)
      : kernel_size(kernel_size), strides(kernel_size) {}
  AvgPool2d init() const;
  EMBER_CONFIG(AvgPool2dConfig, kernel_size, strides, padding, count_include_pad, ceil_mode)
};

struct AdaptiveAvgPool1dConfig {
  int64_t output_size = 0;
  explicit AdaptiveAvgPool1dConfig(int64_t output_size) : output_size(output_size) {}
  AdaptiveAvgPool1d init() const;
  EMBER_CONFIG(AdaptiveAvgPool1dConfig, output_size)
};

struct AdaptiveAvgPool2dConfig {
  std::array<int64_t, 2> output_size{};
  explicit AdaptiveAvgPool2dConfig(std::array<int64_t, 2> output_size) : output_size(output_size) {}
  AdaptiveAvgPool2d init() const;
  EMBER_CONFIG(AdaptiveAvgPool2dConfig, output_size)
};

}  // namespace ember::nn
