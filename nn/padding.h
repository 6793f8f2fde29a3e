#pragma once
// Padding of convolutions and pooling (Burn's PaddingConfig1d/2d/3d): Valid (none), Same (the
// output keeps the input's size; stride 1 only, as Burn) or Explicit (the same amount on both
// sides of each spatial dim). JSON as Burn's serde: "Valid", "Same", {"Explicit": [1, 1]}
// ({"Explicit": 1} in 1-D).
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "frontend/tensor.h"

namespace ember::nn {

template <size_t N>
class PaddingConfig {
 public:
  enum class Kind { Valid, Same, Explicit };

  static PaddingConfig valid() { return PaddingConfig(Kind::Valid, {}); }
  static PaddingConfig same() { return PaddingConfig(Kind::Same, {}); }
  static PaddingConfig explicit_(std::array<int64_t, N> amounts) {
    return PaddingConfig(Kind::Explicit, amounts);
  }

  Kind kind() const { return kind_; }
  const std::array<int64_t, N>& amounts() const { return amounts_; }
  bool operator==(const PaddingConfig&) const = default;

  // "Valid", "Same", "Explicit(1, 1)" (Burn's Debug text, shown in module displays).
  std::string to_string() const {
    if (kind_ == Kind::Valid) return "Valid";
    if (kind_ == Kind::Same) return "Same";
    std::string s = "Explicit(";
    for (size_t i = 0; i < N; ++i) s += (i ? ", " : "") + std::to_string(amounts_[i]);
    return s + ")";
  }
  nlohmann::json to_json() const {
    if (kind_ == Kind::Valid) return "Valid";
    if (kind_ == Kind::Same) return "Same";
    nlohmann::json a = N == 1 ? nlohmann::json(amounts_[0]) : nlohmann::json(amounts_);
    return nlohmann::json{{"Explicit", a}};
  }
  static PaddingConfig from_json(const nlohmann::json& j) {
    if (j == "Valid") return valid();
    if (j == "Same") return same();
    if (j.is_object() && j.size() == 1 && j.contains("Explicit")) {
      const auto& a = j.at("Explicit");
      std::array<int64_t, N> amounts{};
      if constexpr (N == 1) {
        amounts[0] = a.is_array() ? a.at(0).get<int64_t>() : a.get<int64_t>();
      } else {
        amounts = a.get<std::array<int64_t, N>>();
      }
      return explicit_(amounts);
    }
    throw Error("PaddingConfig: expected \"Valid\", \"Same\" or {\"Explicit\": ...}, got " +
                j.dump());
  }

 private:
  PaddingConfig(Kind k, std::array<int64_t, N> a) : kind_(k), amounts_(a) {}
  Kind kind_ = Kind::Valid;
  std::array<int64_t, N> amounts_{};
};

using PaddingConfig1d = PaddingConfig<1>;
using PaddingConfig2d = PaddingConfig<2>;
using PaddingConfig3d = PaddingConfig<3>;

namespace detail {

// The padding a layer applies: `symmetric` per spatial dim passed to the op, and, for Same with
// an even effective kernel, the (before, after) amounts to pad the input with first (the extra
// one after, as PyTorch), the op then running with no padding.
template <size_t N>
struct ResolvedPadding {
  std::array<int64_t, N> symmetric{};
  std::vector<std::pair<int64_t, int64_t>> asymmetric;  // Tensor::pad order: last dim first
};

// Throws (naming `config`) for Same with a stride other than 1 or negative explicit amounts.
template <size_t N>
void check_padding(const char* config, const PaddingConfig<N>& p,
                   const std::array<int64_t, N>& stride) {
  if (p.kind() == PaddingConfig<N>::Kind::Same) {
    for (int64_t s : stride) {
      if (s != 1) {
        throw Error(std::string(config) + ": padding Same needs stride 1 (as Burn), got stride " +
                    std::to_string(s));
      }
    }
  }
  if (p.kind() == PaddingConfig<N>::Kind::Explicit) {
    for (int64_t a : p.amounts()) {
      if (a < 0) {
        throw Error(std::string(config) + ": explicit padding must not be negative, got " +
                    p.to_string());
      }
    }
  }
}

template <size_t N>
ResolvedPadding<N> resolve_padding(const PaddingConfig<N>& p, const std::array<int64_t, N>& kernel,
                                   const std::array<int64_t, N>& dilation) {
  ResolvedPadding<N> r;
  if (p.kind() == PaddingConfig<N>::Kind::Explicit) r.symmetric = p.amounts();
  if (p.kind() != PaddingConfig<N>::Kind::Same) return r;
  bool even = false;
  for (size_t i = 0; i < N; ++i) {
    int64_t total = dilation[i] * (kernel[i] - 1);
    r.symmetric[i] = total / 2;
    even = even || total % 2 != 0;
  }
  if (!even) return r;
  for (size_t i = N; i-- > 0;) {
    int64_t total = dilation[i] * (kernel[i] - 1);
    r.asymmetric.emplace_back(total / 2, total - total / 2);
  }
  r.symmetric.fill(0);
  return r;
}

template <int D>
Tensor<D> apply_asymmetric(const Tensor<D>& x, const std::vector<std::pair<int64_t, int64_t>>& pads,
                           double value = 0) {
  return pads.empty() ? x : x.pad(pads, value);
}

template <size_t N>
std::vector<int64_t> as_vector(const std::array<int64_t, N>& a) {
  return std::vector<int64_t>(a.begin(), a.end());
}

}  // namespace detail
}  // namespace ember::nn
