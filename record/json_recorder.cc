#include "record/json_recorder.h"

#include <cmath>
#include <limits>

#include "record/file_io.h"
#include "record/json_util.h"
#include "record/precision.h"
#include "record/version.h"

namespace ember::record {

namespace {

using nlohmann::json;

json float_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json values_json(const Entry& e) {
  TensorData d = e.to_data();
  json out = json::array();
  if (is_float(d.dtype())) {
    for (double v : d.to_vec<double>()) out.push_back(float_json(v));
  } else if (d.dtype() == DType::Bool) {
    for (bool v : d.to_vec<bool>()) out.push_back(v);
  } else {
    for (int64_t v : d.to_vec<int64_t>()) out.push_back(v);
  }
  return out;
}

double parse_float(const std::string& where, const json& v) {
  if (v.is_number()) return v.get<double>();
  if (v == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (v == "inf") return std::numeric_limits<double>::infinity();
  if (v == "-inf") return -std::numeric_limits<double>::infinity();
  throw Error(where + ": value " + v.dump() + " is not a number");
}

TensorData values_data(const std::string& where, const json& values, DType dtype,
                       const Shape& shape) {
  if (!values.is_array()) throw Error(where + ": values is not an array");
  if (checked_nbytes(where, dtype, shape) / dtype_size(dtype) != values.size()) {
    throw Error(where + ": " + std::to_string(values.size()) + " values for shape " +
                shape.to_string());
  }
  if (is_float(dtype)) {
    std::vector<double> v;
    for (const json& x : values) v.push_back(parse_float(where, x));
    return TensorData(v, shape).convert(dtype);
  }
  if (dtype == DType::Bool) {
    std::vector<bool> v;
    for (const json& x : values) {
      if (!x.is_boolean()) throw Error(where + ": value " + x.dump() + " is not a bool");
      v.push_back(x.get<bool>());
    }
    return TensorData(v, shape);
  }
  std::vector<int64_t> v;
  for (const json& x : values) {
    if (!x.is_number_integer()) throw Error(where + ": value " + x.dump() + " is not an integer");
    v.push_back(x.get<int64_t>());
  }
  return TensorData(v, shape).convert(dtype);
}

}  // namespace

void write_json(const Record& record, const std::string& path, const SaveOptions& options) {
  json root = {{"format", "ember-record-json"},
               {"format_version", 1},
               {"ember_version", ember_version()},
               {"metadata", record.metadata},
               {"entries", json::array()}};
  for (const Entry& original : record.entries) {
    Entry e = with_precision(original, options.precision);
    json j = {{"path", e.path},
              {"kind", entry_kind_name(e.kind)},
              {"dtype", dtype_name(e.dtype())},
              {"shape", detail::shape_json(e.shape())},
              {"values", values_json(e)}};
    if (e.id) j["id"] = detail::id_hex(*e.id);
    root["entries"].push_back(std::move(j));
  }
  const std::string text = root.dump(2) + "\n";
  AtomicFileWriter out(path);
  out.write(text.data(), text.size());
  out.commit(options.durable);
}

Record read_json(const std::string& path, const LoadOptions&) {
  auto file = MappedFile::open(path);
  const std::string where = "record: '" + path + "'";
  auto bytes = file->bytes();
  json root = detail::parse_json(
      where, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  if (!root.is_object() || root.value("format", "") != "ember-record-json") {
    throw Error(where + " is not an Ember JSON record (no \"format\": \"ember-record-json\")");
  }
  Record record;
  for (const auto& [k, v] : detail::field(where, root, "metadata").items()) {
    if (!v.is_string()) throw Error(where + ": metadata '" + k + "' is not a string");
    record.metadata[k] = v.get<std::string>();
  }
  const json& entries = detail::field(where, root, "entries");
  if (!entries.is_array()) throw Error(where + ": entries is not an array");
  for (const json& j : entries) {
    const std::string name = detail::field_string(where, j, "path");
    const std::string at = where + ", tensor '" + name + "'";
    DType dtype;
    try {
      dtype = dtype_from_name(detail::field_string(at, j, "dtype"));
    } catch (const Error& e) {
      throw Error(at + ": " + e.what());
    }
    Shape shape = detail::parse_shape(at, detail::field(at, j, "shape"));
    std::optional<uint64_t> id;
    if (j.contains("id")) id = detail::parse_id_hex(at, detail::field_string(at, j, "id"));
    record.entries.emplace_back(name, values_data(at, detail::field(at, j, "values"), dtype, shape),
                                id, entry_kind_from_name(detail::field_string(at, j, "kind")));
  }
  return record;
}

}  // namespace ember::record
