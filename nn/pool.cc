#include "nn/pool.h"

namespace ember::nn {

MaxPool1d MaxPool1dConfig::init() const {
  detail::check_pool<1>(config_name(), {kernel_size}, {stride}, {dilation}, padding);
  MaxPool1d p;
  p.kernel_size = {kernel_size};
  p.stride = {stride};
  p.padding = padding;
  p.dilation = {dilation};
  p.ceil_mode = ceil_mode;
  return p;
}

MaxPool2d MaxPool2dConfig::init() const {
  detail::check_pool<2>(config_name(), kernel_size, strides, dilation, padding);
  MaxPool2d p;
  p.kernel_size = kernel_size;
  p.stride = strides;
  p.padding = padding;
  p.dilation = dilation;
  p.ceil_mode = ceil_mode;
  return p;
}

AvgPool1d AvgPool1dConfig::init() const {
  detail::check_pool<1>(config_name(), {kernel_size}, {stride}, {1}, padding);
  AvgPool1d p;
  p.kernel_size = {kernel_size};
  p.stride = {stride};
  p.padding = padding;
  p.count_include_pad = count_include_pad;
  p.ceil_mode = ceil_mode;
  return p;
}

AvgPool2d AvgPool2dConfig::init() const {
  detail::check_pool<2>(config_name(), kernel_size, strides, {1, 1}, padding);
  AvgPool2d p;
  p.kernel_size = kernel_size;
  p.stride = strides;
  p.padding = padding;
  p.count_include_pad = count_include_pad;
  p.ceil_mode = ceil_mode;
  return p;
}

AdaptiveAvgPool1d AdaptiveAvgPool1dConfig::init() const {
  detail::check_positive(config_name(), "output_size", static_cast<double>(output_size));
  AdaptiveAvgPool1d p;
  p.output_size = {output_size};
  return p;
}

AdaptiveAvgPool2d AdaptiveAvgPool2dConfig::init() const {
  detail::check_all_positive(config_name(), "output_size", detail::as_vector(output_size));
  AdaptiveAvgPool2d p;
  p.output_size = output_size;
  return p;
}

}  // namespace ember::nn
