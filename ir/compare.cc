#include "ir/compare.h"

#include <cstring>
#include <type_traits>

namespace ember::ir {
namespace {

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof(double)) == 0; }

// Attributes of one alternative, runtime scalars excluded.
template <class A>
bool same_structural_attrs(const A& x, const A& y) {
  if constexpr (std::is_same_v<A, NoAttrs>) return true;
  if constexpr (std::is_same_v<A, InputAttrs>) return x.slot == y.slot;
  if constexpr (std::is_same_v<A, FullAttrs>) return x.value.is_int == y.value.is_int;
  if constexpr (std::is_same_v<A, IotaAttrs> || std::is_same_v<A, AxisAttrs>)
    return x.axis == y.axis;
  if constexpr (std::is_same_v<A, RandomAttrs>) return x.dist == y.dist;
  if constexpr (std::is_same_v<A, UnaryAttrs> || std::is_same_v<A, BinaryAttrs>)
    return x.fn == y.fn;
  if constexpr (std::is_same_v<A, ReduceAttrs>) return x.fn == y.fn && x.axis == y.axis;
  if constexpr (std::is_same_v<A, PermuteAttrs>) return x.perm == y.perm;
  if constexpr (std::is_same_v<A, SliceAttrs>) return x.starts == y.starts && x.steps == y.steps;
  if constexpr (std::is_same_v<A, FlipAttrs>) return x.axes == y.axes;
  if constexpr (std::is_same_v<A, PadAttrs>) {
    return x.before == y.before && x.after == y.after && x.value.is_int == y.value.is_int;
  }
  if constexpr (std::is_same_v<A, SortAttrs>) {
    return x.axis == y.axis && x.descending == y.descending && x.indices == y.indices;
  }
}

template <class A>
bool same_scalar_attrs(const A& x, const A& y) {
  if constexpr (std::is_same_v<A, FullAttrs>) return identical(x.value, y.value);
  if constexpr (std::is_same_v<A, PadAttrs>) return identical(x.value, y.value);
  if constexpr (std::is_same_v<A, RandomAttrs>) {
    return same_bits(x.a, y.a) && same_bits(x.b, y.b) && x.seed == y.seed && x.offset == y.offset;
  }
  return true;
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
  return std::visit(
      [&](const auto& x) {
        using A = std::decay_t<decltype(x)>;
        const A& y = std::get<A>(b.attrs);
        if (!same_structural_attrs(x, y)) return NodeMatch::Different;
        return same_scalar_attrs(x, y) ? NodeMatch::Same : NodeMatch::OtherScalars;
      },
      a.attrs);
}

}  // namespace ember::ir
