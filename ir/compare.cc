#include "ir/compare.h"

#include <cstring>
#include <type_traits>

#include "ir/attrs.h"

namespace ember::ir {
namespace {

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof(double)) == 0; }

// Runtime scalars bit for bit (-0 and 0 differ, a NaN equals the same NaN).
template <class T>
bool same_scalar(const T& x, const T& y) {
  if constexpr (std::is_same_v<T, double>) return same_bits(x, y);
  return x == y;
}

// Walks the field list of both nodes' attributes (the same alternative) at once.
NodeMatch match_attrs(const Attrs& a, const Attrs& b) {
  return std::visit(
      [&](const auto& x) {
        using A = std::decay_t<decltype(x)>;
        const A& y = std::get<A>(b);
        NodeMatch result = NodeMatch::Same;
        A::fields([&](const char*, auto member, Role role) {
          if (result == NodeMatch::Different) return;
          const auto& xv = x.*member;
          const auto& yv = y.*member;
          using T = std::decay_t<decltype(xv)>;
          if constexpr (std::is_same_v<T, Scalar>) {  // always Role::Scalar
            if (xv.is_int != yv.is_int) {
              result = NodeMatch::Different;  // the kind of a scalar is structure
            } else if (!identical(xv, yv)) {
              result = NodeMatch::OtherScalars;
            }
          } else if (role != Role::Scalar) {
            if (!(xv == yv)) result = NodeMatch::Different;
          } else if (!same_scalar(xv, yv)) {
            result = NodeMatch::OtherScalars;
          }
        });
        return result;
      },
      a);
}

// Inline loops: a memcmp call per short array cost more than the comparison.
bool same_inputs(const ValueIds& a, const ValueIds& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace

bool identical(const Scalar& a, const Scalar& b) {
  return a.is_int == b.is_int && a.i == b.i && same_bits(a.f, b.f);
}

NodeMatch match_nodes(const Node& a, const Node& b) {
  if (a.op != b.op || a.attrs.index() != b.attrs.index() || a.type.dtype != b.type.dtype ||
      !same_inputs(a.inputs, b.inputs) || a.type.shape != b.type.shape) {
    return NodeMatch::Different;
  }
  return match_attrs(a.attrs, b.attrs);
}

}  // namespace ember::ir
