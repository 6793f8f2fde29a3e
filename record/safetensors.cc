#include "record/safetensors.h"

#include <cstring>

#include "record/file_io.h"
#include "record/json_util.h"
#include "record/precision.h"

namespace ember::record {

namespace {

using nlohmann::json;
// The safetensors library refuses headers above 100 MB; so do we (before allocating).
constexpr uint64_t kMaxHeader = 100'000'000;

const char* st_dtype(DType t) {
  switch (t) {
    case DType::F32:
      return "F32";
    case DType::F16:
      return "F16";
    case DType::BF16:
      return "BF16";
    case DType::F64:
      return "F64";
    case DType::I32:
      return "I32";
    case DType::I64:
      return "I64";
    case DType::U8:
      return "U8";
    case DType::Bool:
      return "BOOL";
  }
  return "?";
}

DType parse_st_dtype(const std::string& where, const std::string& name) {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I32, DType::I64,
                  DType::U8, DType::Bool}) {
    if (name == st_dtype(t)) return t;
  }
  throw Error(where + ": dtype " + name + " is not supported by Ember (it has F32, F16, BF16, " +
              "F64, I32, I64, U8 and BOOL)");
}

json ember_metadata(const Record& record, json& kinds) {
  json ids = json::object();
  kinds = json::object();
  for (const Entry& e : record.entries) {
    if (e.id) ids[e.path] = detail::id_hex(*e.id);
    kinds[e.path] = entry_kind_name(e.kind);
  }
  return ids;
}

}  // namespace

void write_safetensors(const Record& record, const std::string& path, const SaveOptions& options) {
  std::vector<Entry> entries;
  for (const Entry& e : record.entries) entries.push_back(with_precision(e, options.precision));
  json header = json::object();
  json meta(record.metadata);
  json kinds;
  meta["ember.ids"] = ember_metadata(record, kinds).dump();
  meta["ember.kinds"] = kinds.dump();
  header["__metadata__"] = meta;
  uint64_t offset = 0;
  for (const Entry& e : entries) {
    if (header.contains(e.path)) {
      throw Error("record: saving '" + path + "': two tensors named '" + e.path + "'");
    }
    header[e.path] = {{"dtype", st_dtype(e.dtype())},
                      {"shape", detail::shape_json(e.shape())},
                      {"data_offsets", {offset, offset + e.bytes().size()}}};
    offset += e.bytes().size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  const uint64_t n = text.size();
  AtomicFileWriter out(path);
  out.write(&n, 8);
  out.write(text.data(), text.size());
  for (const Entry& e : entries) out.write(e.bytes());
  out.commit(options.durable);
}

namespace {

std::map<std::string, std::string> read_map(const std::string& where, const json& meta,
                                            const char* key) {
  std::map<std::string, std::string> out;
  if (!meta.contains(key)) return out;
  json j = detail::parse_json(where + " (" + key + ")", meta[key].get<std::string>());
  if (!j.is_object()) throw Error(where + ": metadata " + key + " is not a JSON object");
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) throw Error(where + ": metadata " + key + " has a non-string value");
    out[k] = v.get<std::string>();
  }
  return out;
}

Entry read_tensor(const std::string& where, const std::string& name, const json& j,
                  std::span<const std::byte> data, const std::shared_ptr<const MappedFile>& file) {
  const std::string at = where + ", tensor '" + name + "'";
  const DType dtype = parse_st_dtype(at, detail::field_string(at, j, "dtype"));
  const Shape shape = detail::parse_shape(at, detail::field(at, j, "shape"));
  const json& offsets = detail::field(at, j, "data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    throw Error(at + ": data_offsets is not [begin, end]: " + offsets.dump());
  }
  const uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
  if (begin > end || end > data.size()) {
    throw Error(at + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                "] lie outside the " + std::to_string(data.size()) +
                " data bytes (truncated or corrupt)");
  }
  check_shape_bytes(at, dtype, shape, end - begin);
  return Entry(name, dtype, shape, data.subspan(begin, end - begin), file);
}

}  // namespace

Record read_safetensors(const std::string& path, const LoadOptions&) {
  auto file = MappedFile::open(path);
  const std::string where = "record: '" + path + "'";
  auto bytes = file->bytes();
  uint64_t n = 0;
  if (bytes.size() >= 8) std::memcpy(&n, bytes.data(), 8);
  if (bytes.size() < 8 || n > kMaxHeader || n > bytes.size() - 8) {
    throw Error(where + " is not a safetensors file (header length " + std::to_string(n) +
                " does not fit its " + std::to_string(bytes.size()) + " bytes)");
  }
  json header = detail::parse_json(
      where, std::string_view(reinterpret_cast<const char*>(bytes.data()) + 8, n));
  if (!header.is_object()) throw Error(where + ": the header is not a JSON object");
  Record record;
  json meta = header.contains("__metadata__") ? header["__metadata__"] : json::object();
  if (!meta.is_object()) throw Error(where + ": __metadata__ is not an object");
  for (const auto& [k, v] : meta.items()) {
    if (!v.is_string()) throw Error(where + ": metadata '" + k + "' is not a string");
    if (k != "ember.ids" && k != "ember.kinds") record.metadata[k] = v.get<std::string>();
  }
  const auto ids = read_map(where, meta, "ember.ids");
  const auto kinds = read_map(where, meta, "ember.kinds");
  auto data = bytes.subspan(8 + n);
  for (const auto& [name, j] : header.items()) {
    if (name == "__metadata__") continue;
    Entry e = read_tensor(where, name, j, data, file);
    if (auto it = ids.find(name); it != ids.end()) e.id = detail::parse_id_hex(where, it->second);
    if (auto it = kinds.find(name); it != kinds.end()) e.kind = entry_kind_from_name(it->second);
    record.entries.push_back(std::move(e));
  }
  return record;
}

}  // namespace ember::record
