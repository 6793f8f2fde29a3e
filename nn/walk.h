#pragma once
// The traversal every module operation is built on. A module is a type with
// `static constexpr const char* module_name()` and
// `template <class Self, class F> static void for_each_field(Self& self, F&& f)`, which calls
// f(name, field) for each declared field (EMBER_MODULE in module.h writes both). A field is a
// Param, a Buffer, a module, a std::optional or std::vector of those, or a constant (a number,
// enum, bool or string: displayed, never mapped).
#include <concepts>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/param.h"

namespace ember::nn {

template <class M>
concept Module = requires {
  { M::module_name() } -> std::convertible_to<const char*>;
};

namespace detail {

template <class T>
inline constexpr bool is_optional_v = false;
template <class T>
inline constexpr bool is_optional_v<std::optional<T>> = true;
template <class T>
inline constexpr bool is_vector_v = false;
template <class T>
inline constexpr bool is_vector_v<std::vector<T>> = true;
template <class T>
inline constexpr bool is_constant_v =
    std::is_arithmetic_v<T> || std::is_enum_v<T> || std::same_as<T, std::string>;

// Whether a field shows as a sub-module: a module, or an optional or vector of them.
template <class T>
inline constexpr bool is_module_like_v = Module<T>;
template <class T>
inline constexpr bool is_module_like_v<std::optional<T>> = is_module_like_v<T>;
template <class T>
inline constexpr bool is_module_like_v<std::vector<T>> = is_module_like_v<T>;

inline std::string join_path(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

template <class N>
void check_field_type() {
  static_assert(is_param_v<N> || is_buffer_v<N> || Module<N> || is_optional_v<N> ||
                    is_vector_v<N> || is_constant_v<N>,
                "a module field must be a Param, a Buffer, a module (EMBER_MODULE), a "
                "std::optional or std::vector of those, or a constant (number, enum, string); "
                "wrap a tensor in a Param (frozen: set_require_grad(false)) or a Buffer");
}

// Calls f(path, entry) for every Param and Buffer under `node`, in declaration order. `Node` may
// be const (visiting) or not (mapping in place).
template <class Node, class F>
void walk(Node& node, const std::string& path, F& f) {
  using N = std::remove_const_t<Node>;
  check_field_type<N>();
  if constexpr (is_param_v<N> || is_buffer_v<N>) {
    if (node.defined()) f(path, node);
  } else if constexpr (Module<N>) {
    N::for_each_field(
        node, [&](const auto& name, auto& field) { walk(field, join_path(path, name), f); });
  } else if constexpr (is_optional_v<N>) {
    if (node) walk(*node, path, f);
  } else if constexpr (is_vector_v<N>) {
    for (size_t i = 0; i < node.size(); ++i) walk(node[i], join_path(path, std::to_string(i)), f);
  }
}

// Calls f(module) for every module under `node` (itself included), children first.
template <class Node, class F>
void walk_modules(Node& node, F& f) {
  using N = std::remove_const_t<Node>;
  if constexpr (Module<N>) {
    N::for_each_field(node, [&](const auto&, auto& field) { walk_modules(field, f); });
    f(node);
  } else if constexpr (is_optional_v<N>) {
    if (node) walk_modules(*node, f);
  } else if constexpr (is_vector_v<N>) {
    for (auto& m : node) walk_modules(m, f);
  }
}

}  // namespace detail
}  // namespace ember::nn
