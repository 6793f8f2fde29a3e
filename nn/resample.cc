#include "nn/resample.h"

#include <cmath>

namespace ember::nn {

const char* interpolate_mode_name(InterpolateMode m) {
  switch (m) {
    case InterpolateMode::Nearest:
      return "Nearest";
    case InterpolateMode::Linear:
      return "Linear";
    case InterpolateMode::Cubic:
      return "Cubic";
  }
  return "?";
}

void to_json(nlohmann::json& j, InterpolateMode m) { j = interpolate_mode_name(m); }

void from_json(const nlohmann::json& j, InterpolateMode& m) {
  for (auto k : {InterpolateMode::Nearest, InterpolateMode::Linear, InterpolateMode::Cubic}) {
    if (j == interpolate_mode_name(k)) {
      m = k;
      return;
    }
  }
  throw Error("InterpolateMode: expected \"Nearest\", \"Linear\" or \"Cubic\", got " + j.dump());
}

namespace detail {

module::InterpolateOptions interpolate_options(InterpolateMode mode, bool align_corners) {
  module::InterpolateOptions o;
  o.mode = mode == InterpolateMode::Nearest  ? module::InterpolateMode::Nearest
           : mode == InterpolateMode::Linear ? module::InterpolateMode::Bilinear
                                             : module::InterpolateMode::Bicubic;
  o.align_corners = align_corners;
  return o;
}

template <class V>
std::string list_text(const std::vector<V>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + Attributes::format_number(v[i]);
  return s + "]";
}
std::string optional_text(const std::optional<std::vector<int64_t>>& v) {
  return v ? list_text(*v) : "None";
}
std::string optional_text(const std::optional<std::vector<double>>& v) {
  return v ? list_text(*v) : "None";
}

int64_t resampled_size(const char* layer, int64_t input, std::optional<int64_t> size,
                       std::optional<double> scale) {
  if (size) return *size;
  if (!scale) throw_layer_error(layer, "needs output_size or scale_factor");
  auto out = static_cast<int64_t>(std::floor(static_cast<double>(input) * *scale));
  if (out < 1) {
    throw_layer_error(layer, "scale_factor " + Attributes::format_number(*scale) + " maps size " +
                                 std::to_string(input) + " to " + std::to_string(out));
  }
  return out;
}

namespace {
void check_resample(const char* config, bool has_size, bool has_scale,
                    const std::vector<double>& values) {
  if (!has_size && !has_scale) throw_layer_error(config, "needs output_size or scale_factor");
  for (double v : values) check_positive(config, has_size ? "output_size" : "scale_factor", v);
}
}  // namespace

}  // namespace detail

Interpolate1d Interpolate1dConfig::init() const {
  std::vector<double> v;
  if (output_size)
    v.push_back(static_cast<double>(*output_size));
  else if (scale_factor)
    v.push_back(*scale_factor);
  detail::check_resample(config_name(), output_size.has_value(), scale_factor.has_value(), v);
  Interpolate1d m;
  m.output_size = output_size;
  m.scale_factor = scale_factor;
  m.mode = mode;
  m.align_corners = align_corners;
  return m;
}

Interpolate2d Interpolate2dConfig::init() const {
  std::vector<double> v;
  if (output_size)
    v = {static_cast<double>((*output_size)[0]), static_cast<double>((*output_size)[1])};
  else if (scale_factor)
    v = {(*scale_factor)[0], (*scale_factor)[1]};
  detail::check_resample(config_name(), output_size.has_value(), scale_factor.has_value(), v);
  Interpolate2d m;
  m.output_size = output_size;
  m.scale_factor = scale_factor;
  m.mode = mode;
  m.align_corners = align_corners;
  return m;
}

Unfold4d Unfold4dConfig::init() const {
  detail::check_all_positive(config_name(), "kernel_size", detail::as_vector(kernel_size));
  detail::check_all_positive(config_name(), "stride", detail::as_vector(stride));
  detail::check_all_positive(config_name(), "dilation", detail::as_vector(dilation));
  for (int64_t p : padding) {
    if (p < 0) detail::throw_layer_error(config_name(), "padding must not be negative");
  }
  Unfold4d u;
  u.kernel_size = kernel_size;
  u.stride = stride;
  u.dilation = dilation;
  u.padding = padding;
  return u;
}

PixelShuffle PixelShuffleConfig::init() const {
  detail::check_positive(config_name(), "upscale_factor", static_cast<double>(upscale_factor));
  PixelShuffle p;
  p.upscale_factor = upscale_factor;
  return p;
}

}  // namespace ember::nn
