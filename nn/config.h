#pragma once
// Configs (Burn's #[derive(Config)]): a struct whose constructor takes the required values, with
// Burn's defaults for the rest, and one declaration naming every field,
//
//   struct LinearConfig {
//     int64_t d_input, d_output;
//     bool bias = true;
//     explicit LinearConfig(int64_t d_input, int64_t d_output) : ... {}
//     EMBER_CONFIG(LinearConfig, d_input, d_output, bias)
//   };
//
// which gives with_<field>(value) builders (returning a changed copy), ==, JSON (to_json,
// from_json, save, load; a loaded file must name every field) and to_string (the JSON text).
// EMBER_CONFIG leaves what follows it public.
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ir/error.h"
#include "nn/for_each.h"
#include "nn/walk.h"

namespace ember::nn::detail {

// Selects a config's private constructor that leaves every field at its default (from_json).
struct BlankConfig {};

template <class T>
nlohmann::json field_to_json(const T& v) {
  if constexpr (requires { v.to_json(); }) {
    return v.to_json();
  } else if constexpr (is_optional_v<T>) {
    return v ? field_to_json(*v) : nlohmann::json(nullptr);
  } else {
    return nlohmann::json(v);
  }
}

template <class T>
T field_from_json(const nlohmann::json& j) {
  if constexpr (requires { T::from_json(j); }) {
    return T::from_json(j);
  } else if constexpr (is_optional_v<T>) {
    if (j.is_null()) return std::nullopt;
    return field_from_json<typename T::value_type>(j);
  } else {
    return j.get<T>();
  }
}

template <class T>
void read_field(const nlohmann::json& j, const char* config, const char* name, T& out) {
  if (!j.is_object() || !j.contains(name)) {
    throw Error(std::string(config) + ": JSON lacks the field \"" + name + "\"");
  }
  try {
    out = field_from_json<T>(j.at(name));
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string(config) + ": bad JSON value for \"" + name + "\": " + e.what());
  }
}

void write_text_file(const std::string& path, const std::string& text, const char* what);
std::string read_text_file(const std::string& path, const char* what);
nlohmann::json parse_json(const std::string& text, const char* what);

}  // namespace ember::nn::detail

#define EMBER_CONFIG_WITH(name)                  \
  auto with_##name(decltype(name) value) const { \
    auto copy = *this;                           \
    copy.name = std::move(value);                \
    return copy;                                 \
  }
#define EMBER_CONFIG_TO_JSON(name) j[#name] = ::ember::nn::detail::field_to_json(name);
#define EMBER_CONFIG_FROM_JSON(name) \
  ::ember::nn::detail::read_field(j, config_name(), #name, c.name);

#define EMBER_CONFIG(Type, ...)                                                    \
 private:                                                                          \
  explicit Type(::ember::nn::detail::BlankConfig) {} /* what from_json fills */    \
                                                                                   \
 public:                                                                           \
  static constexpr const char* config_name() { return #Type; }                     \
  EMBER_NN_FOR_EACH(EMBER_CONFIG_WITH, __VA_ARGS__)                                \
  bool operator==(const Type&) const = default;                                    \
  nlohmann::json to_json() const {                                                 \
    nlohmann::json j = nlohmann::json::object();                                   \
    EMBER_NN_FOR_EACH(EMBER_CONFIG_TO_JSON, __VA_ARGS__)                           \
    return j;                                                                      \
  }                                                                                \
  static Type from_json(const nlohmann::json& j) {                                 \
    Type c{::ember::nn::detail::BlankConfig{}};                                    \
    EMBER_NN_FOR_EACH(EMBER_CONFIG_FROM_JSON, __VA_ARGS__)                         \
    return c;                                                                      \
  }                                                                                \
  std::string to_string() const { return to_json().dump(2); }                      \
  void save(const std::string& path) const {                                       \
    ::ember::nn::detail::write_text_file(path, to_string() + "\n", config_name()); \
  }                                                                                \
  static Type load(const std::string& path) {                                      \
    return from_json(::ember::nn::detail::parse_json(                              \
        ::ember::nn::detail::read_text_file(path, config_name()), config_name())); \
  }
