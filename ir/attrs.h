#pragma once
// Generic access to a node's attributes through the one field list each attribute struct
// declares (`fields` in ir/ops.h): what hashing, comparison, printing, layout fingerprints and
// scalar patching read, so a new primitive declares its attributes once.
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "ir/ops.h"

namespace ember::ir {

// Calls f(name, value, role) for every field of the attributes, in declaration order.
template <class F>
void for_each_field(const Attrs& attrs, F&& f) {
  std::visit(
      [&](const auto& a) {
        using A = std::decay_t<decltype(a)>;
        A::fields([&](const char* name, auto member, Role role) { f(name, a.*member, role); });
      },
      attrs);
}

template <class T>
inline constexpr bool is_vector_field = false;
template <class T>
inline constexpr bool is_vector_field<std::vector<T>> = true;

// Calls w(uint64_t) for each word of a field (an element per vector entry; of an ir::Scalar only
// its kind, int or float, since its value is a runtime scalar).
template <class T, class W>
void field_words(const T& v, W&& w) {
  if constexpr (is_vector_field<T>) {
    w(static_cast<uint64_t>(v.size()));
    for (const auto& x : v) w(static_cast<uint64_t>(x));
  } else if constexpr (std::is_enum_v<T>) {
    w(static_cast<uint64_t>(v));
  } else if constexpr (std::is_integral_v<T>) {
    w(static_cast<uint64_t>(v));
  } else if constexpr (std::is_same_v<T, double>) {
    w(std::bit_cast<uint64_t>(v));
  } else {
    static_assert(std::is_same_v<T, Scalar>, "fields are integers, enums, vectors or scalars");
    w(static_cast<uint64_t>(v.is_int));
  }
}

// A runtime-scalar field's value (Role::Scalar).
using ScalarValue = std::variant<Scalar, double, uint64_t>;

// The index among a node's Role::Scalar fields of the one named `name`; -1 if there is none.
int scalar_field_index(const Attrs& attrs, const char* name);
// The value of the node's `index`th Role::Scalar field.
ScalarValue scalar_field(const Attrs& attrs, int index);

// "name=value" for every printed field, space-separated (fields named fn are part of the op's
// printed name; true flags print as their name, false ones not at all).
std::string attrs_text(const Attrs& attrs);
// The name of the field named fn (binary.add's "add"), or "" when there is none.
std::string attrs_fn_name(const Attrs& attrs);

}  // namespace ember::ir
