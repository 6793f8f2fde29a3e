#pragma once
// Reading and writing the parts of record headers that every JSON-headed format shares, with
// checks that turn a malformed header into an ember::Error naming the file and the field.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "ir/shape.h"

namespace ember::record::detail {

std::string id_hex(uint64_t id);
uint64_t parse_id_hex(const std::string& where, const std::string& text);
nlohmann::json shape_json(const Shape& shape);
// A JSON array of non-negative integers (at most 16 of them).
Shape parse_shape(const std::string& where, const nlohmann::json& j);
// j[key] as the JSON type asked for; throws naming `where` and the key when absent or of another
// type.
const nlohmann::json& field(const std::string& where, const nlohmann::json& j, const char* key);
uint64_t field_u64(const std::string& where, const nlohmann::json& j, const char* key);
std::string field_string(const std::string& where, const nlohmann::json& j, const char* key);
// Parses `text`; a syntax error becomes an ember::Error naming `where`.
nlohmann::json parse_json(const std::string& where, std::string_view text);

}  // namespace ember::record::detail
