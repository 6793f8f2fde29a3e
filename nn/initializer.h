#pragma once
// Parameter initializers (Burn's nn::Initializer) with Burn's fan rules: Kaiming uses fan_in
// (fan_out when fan_out_only), Xavier both; Orthogonal works on the tensor flattened to
// [shape[0], rest].
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "frontend/tensor.h"
#include "nn/param.h"

namespace ember::nn {

class Initializer {
 public:
  enum class Kind {
    Constant,
    Ones,
    Zeros,
    Uniform,
    Normal,
    KaimingUniform,
    KaimingNormal,
    XavierUniform,
    XavierNormal,
    Orthogonal
  };

  static Initializer constant(double value) { return {Kind::Constant, value, 0, false}; }
  static Initializer ones() { return {Kind::Ones, 0, 0, false}; }
  static Initializer zeros() { return {Kind::Zeros, 0, 0, false}; }
  static Initializer uniform(double min, double max) { return {Kind::Uniform, min, max, false}; }
  static Initializer normal(double mean, double std) { return {Kind::Normal, mean, std, false}; }
  static Initializer kaiming_uniform(double gain, bool fan_out_only) {
    return {Kind::KaimingUniform, gain, 0, fan_out_only};
  }
  static Initializer kaiming_normal(double gain, bool fan_out_only) {
    return {Kind::KaimingNormal, gain, 0, fan_out_only};
  }
  static Initializer xavier_uniform(double gain) { return {Kind::XavierUniform, gain, 0, false}; }
  static Initializer xavier_normal(double gain) { return {Kind::XavierNormal, gain, 0, false}; }
  static Initializer orthogonal(double gain) { return {Kind::Orthogonal, gain, 0, false}; }

  Kind kind() const { return kind_; }
  // A tensor of `shape` drawn now. fan_in and fan_out are required by the kinds that read them.
  RawTensor init_raw(const Shape& shape, const Device& device,
                     std::optional<int64_t> fan_in = std::nullopt,
                     std::optional<int64_t> fan_out = std::nullopt) const;
  template <int D>
  Tensor<D> init(const Shape& shape, const Device& device,
                 std::optional<int64_t> fan_in = std::nullopt,
                 std::optional<int64_t> fan_out = std::nullopt) const {
    return Tensor<D>(init_raw(shape, device, fan_in, fan_out), "Initializer");
  }
  // A trainable parameter drawn on first use. The fans are checked now, so a bad configuration
  // fails at init(), not at the first forward pass.
  template <int D>
  Param<Tensor<D>> init_param(const Shape& shape, const Device& device,
                              std::optional<int64_t> fan_in = std::nullopt,
                              std::optional<int64_t> fan_out = std::nullopt) const {
    check(shape, fan_in, fan_out);
    Initializer self = *this;
    return Param<Tensor<D>>::lazy(ParamId(), shape, device, true, [=](const Device& d) {
      return self.template init<D>(shape, d, fan_in, fan_out);
    });
  }

  // "KaimingUniform {gain: 0.57735, fan_out_only: false}"
  std::string to_string() const;
  bool operator==(const Initializer& o) const = default;

  // Burn's serde layout: {"KaimingUniform": {"gain": ..., "fan_out_only": ...}}, "Ones".
  nlohmann::json to_json() const;
  static Initializer from_json(const nlohmann::json& j);

 private:
  Initializer(Kind k, double a, double b, bool fan_out_only)
      : kind_(k), a_(a), b_(b), fan_out_only_(fan_out_only) {}
  void check(const Shape& shape, std::optional<int64_t> fan_in,
             std::optional<int64_t> fan_out) const;

  Kind kind_;
  double a_;  // value, min, mean or gain
  double b_;  // max or std
  bool fan_out_only_;
};

}  // namespace ember::nn
