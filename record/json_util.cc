#include "record/json_util.h"

#include <cstdio>

#include "ir/error.h"

namespace ember::record::detail {

std::string id_hex(uint64_t id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(id));
  return buf;
}

uint64_t parse_id_hex(const std::string& where, const std::string& text) {
  if (text.empty() || text.size() > 16) {
    throw Error(where + ": ParamId '" + text + "' is not 1 to 16 hex digits");
  }
  uint64_t v = 0;
  for (char c : text) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) throw Error(where + ": ParamId '" + text + "' is not lower-case hex");
    v = v * 16 + static_cast<uint64_t>(d);
  }
  return v;
}

nlohmann::json shape_json(const Shape& shape) { return shape.vector(); }

Shape parse_shape(const std::string& where, const nlohmann::json& j) {
  if (!j.is_array() || j.size() > 16) {
    throw Error(where + ": shape is not an array of at most 16 dims: " + j.dump());
  }
  std::vector<int64_t> dims;
  for (const auto& d : j) {
    if (!d.is_number_unsigned()) throw Error(where + ": shape has a bad dim: " + j.dump());
    const uint64_t v = d.get<uint64_t>();
    if (v > (uint64_t(1) << 48)) throw Error(where + ": absurd dim in shape " + j.dump());
    dims.push_back(static_cast<int64_t>(v));
  }
  return Shape(dims);
}

const nlohmann::json& field(const std::string& where, const nlohmann::json& j, const char* key) {
  if (!j.is_object()) throw Error(where + ": expected a JSON object, got " + j.type_name());
  auto it = j.find(key);
  if (it == j.end()) throw Error(where + ": missing field '" + key + "'");
  return *it;
}

uint64_t field_u64(const std::string& where, const nlohmann::json& j, const char* key) {
  const auto& v = field(where, j, key);
  if (!v.is_number_unsigned()) {
    throw Error(where + ": field '" + key + "' is not a non-negative integer: " + v.dump());
  }
  return v.get<uint64_t>();
}

std::string field_string(const std::string& where, const nlohmann::json& j, const char* key) {
  const auto& v = field(where, j, key);
  if (!v.is_string()) throw Error(where + ": field '" + key + "' is not a string: " + v.dump());
  return v.get<std::string>();
}

nlohmann::json parse_json(const std::string& where, std::string_view text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": corrupt JSON header: " + e.what());
  }
}

}  // namespace ember::record::detail
