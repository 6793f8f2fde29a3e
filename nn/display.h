#pragma once
// Module display in Burn's ModuleDisplay layout: a module with sub-modules prints one line per
// field and its parameter count, indented by two per level; a leaf prints on one line with its
// attributes ("Linear {d_input: 4, d_output: 2, bias: true, params: 10}"), or only its name when it
// has neither attributes nor parameters ("Relu").
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "nn/walk.h"

namespace ember::nn {

// The attributes a module shows: a module may define
// `void display_attributes(nn::Attributes& a) const` to add its configuration.
class Attributes {
 public:
  Attributes& add(const std::string& name, std::string value) {
    items_.emplace_back(name, std::move(value));
    return *this;
  }
  Attributes& add(const std::string& name, const char* value) {
    return add(name, std::string(value));
  }
  Attributes& add(const std::string& name, bool value) {
    return add(name, std::string(value ? "true" : "false"));
  }
  template <class V>
  requires std::is_arithmetic_v<V> Attributes& add(const std::string& name, V value) {
    return add(name, format_number(value));
  }
  template <class V>
  Attributes& add(const std::string& name, const std::vector<V>& values) {
    std::string s = "[";
    for (size_t i = 0; i < values.size(); ++i) {
      s += (i ? ", " : "") + format_number(values[i]);
    }
    return add(name, s + "]");
  }
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }

  // The shortest text that reads back as the same value.
  template <class V>
  static std::string format_number(V value) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof(buf), value);
    return std::string(buf, r.ptr);
  }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

namespace detail {

template <class N>
int64_t count_params(const N& node) {
  int64_t n = 0;
  auto add = [&](const std::string&, const auto& p) { n += p.num_elements(); };
  walk(node, std::string(), add);
  return n;
}

template <class N>
std::string display(const N& node, int indent);

inline std::string block(const std::string& head,
                         const std::vector<std::pair<std::string, std::string>>& lines,
                         int64_t params, int indent) {
  std::string pad(indent + 2, ' ');
  std::string s = head + " {\n";
  for (const auto& [name, text] : lines) s += pad + name + ": " + text + "\n";
  s += pad + "params: " + std::to_string(params) + "\n";
  return s + std::string(indent, ' ') + "}";
}

template <Module M>
std::string display_module(const M& m, int indent) {
  Attributes attrs;
  if constexpr (requires { m.display_attributes(attrs); }) m.display_attributes(attrs);
  std::vector<std::pair<std::string, std::string>> children;
  M::for_each_field(m, [&](const auto& name, const auto& field) {
    using F = std::decay_t<decltype(field)>;
    if constexpr (is_module_like_v<F>) {
      children.emplace_back(name, display(field, indent + 2));
    } else if constexpr (requires { attrs.add(name, field); }) {
      attrs.add(name, field);  // a constant: a number, bool or string
    }
  });
  int64_t params = count_params(m);
  if (!children.empty()) {
    children.insert(children.end(), attrs.items().begin(), attrs.items().end());
    return block(M::module_name(), children, params, indent);
  }
  if (attrs.items().empty() && params == 0) return M::module_name();
  std::string s = std::string(M::module_name()) + " {";
  for (size_t i = 0; i < attrs.items().size(); ++i) {
    s += (i ? ", " : "") + attrs.items()[i].first + ": " + attrs.items()[i].second;
  }
  if (params > 0) s += std::string(attrs.items().empty() ? "" : ", ") + "params: ";
  if (params > 0) s += std::to_string(params);
  return s + "}";
}

template <class N>
std::string display(const N& node, int indent) {
  if constexpr (Module<N>) {
    return display_module(node, indent);
  } else if constexpr (is_optional_v<N>) {
    return node ? display(*node, indent) : "None";
  } else if constexpr (is_vector_v<N>) {
    std::vector<std::pair<std::string, std::string>> lines;
    for (size_t i = 0; i < node.size(); ++i) {
      lines.emplace_back(std::to_string(i), display(node[i], indent + 2));
    }
    return block("Vec<0.." + std::to_string(node.size()) + ">", lines, count_params(node), indent);
  } else {
    return "";
  }
}

}  // namespace detail

// The module's display text (what `std::cout << module` prints).
template <Module M>
std::string to_string(const M& m) {
  return detail::display(m, 0);
}

}  // namespace ember::nn
