#pragma once
// ParamId: the stable identity of a module parameter or state tensor. Optimizer state, records and
// per-parameter gradients key on it; it survives steps, device moves, fork, valid() and
// save/load, unlike the tape's node ids, which change every step.
#include <cstdint>
#include <functional>
#include <string>

namespace ember::nn {

class ParamId {
 public:
  // A new id, distinct from every other id this process has made.
  ParamId();
  // The id `value` (a loaded record's id, for example).
  static ParamId from_value(uint64_t value) { return ParamId(value); }

  uint64_t value() const { return value_; }
  // 16 hex digits.
  std::string to_string() const;
  bool operator==(const ParamId& o) const { return value_ == o.value_; }
  bool operator!=(const ParamId& o) const { return value_ != o.value_; }
  bool operator<(const ParamId& o) const { return value_ < o.value_; }

 private:
  explicit ParamId(uint64_t value) : value_(value) {}
  uint64_t value_;
};

}  // namespace ember::nn

template <>
struct std::hash<ember::nn::ParamId> {
  size_t operator()(const ember::nn::ParamId& id) const {
    return std::hash<uint64_t>()(id.value());
  }
};
