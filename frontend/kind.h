#pragma once
// Tensor kinds: the element family of Tensor<D, K> and its default dtype.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace ember {

struct Float {
  static constexpr DType kDefault = DType::F32;
  static constexpr const char* kName = "Float";
  using Elem = double;  // element type of nested initializer lists
  static bool accepts(DType t) { return is_float(t); }
};
struct Int {
  static constexpr DType kDefault = DType::I32;
  static constexpr const char* kName = "Int";
  using Elem = int64_t;
  static bool accepts(DType t) { return is_int(t); }
};
struct Bool {
  static constexpr DType kDefault = DType::Bool;
  static constexpr const char* kName = "Bool";
  using Elem = bool;
  static bool accepts(DType t) { return is_bool(t); }
};

// std::initializer_list nested D deep: Tensor<2>::from_data({{1, 2}, {3, 4}}).
template <class T, int D>
struct Nested {
  using type = std::initializer_list<typename Nested<T, D - 1>::type>;
};
template <class T>
struct Nested<T, 1> {
  using type = std::initializer_list<T>;
};
template <class T, int D>
using NestedList = typename Nested<T, D>::type;

namespace detail {
[[noreturn]] void throw_ragged(int depth, int64_t expected, int64_t got);

// Flattens a nested list, recording the shape; throws ember::Error when it is ragged.
template <class T, int D>
void flatten_nested(const NestedList<T, D>& list, int depth, std::vector<int64_t>& shape,
                    std::vector<T>& out) {
  int64_t n = static_cast<int64_t>(list.size());
  if (static_cast<int>(shape.size()) <= depth) {
    shape.push_back(n);
  } else if (shape[depth] != n) {
    throw_ragged(depth, shape[depth], n);
  }
  if constexpr (D == 1) {
    out.insert(out.end(), list.begin(), list.end());
  } else {
    for (const auto& inner : list) flatten_nested<T, D - 1>(inner, depth + 1, shape, out);
    if (n == 0) {  // an empty outer list still fixes the inner ranks to 0
      for (int d = depth + 1; d < depth + D; ++d) shape.push_back(0);
    }
  }
}
}  // namespace detail

}  // namespace ember
