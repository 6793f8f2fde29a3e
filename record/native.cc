#include "record/native.h"

#include <zlib.h>

#include <atomic>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "record/checksum.h"
#include "record/file_io.h"
#include "record/json_util.h"
#include "record/precision.h"
#include "record/version.h"

namespace ember::record {

namespace {

using nlohmann::json;
constexpr char kMagic[8] = {'E', 'M', 'B', 'E', 'R', 'R', 'E', 'C'};
constexpr size_t kPrefix = 24;  // magic, version, reserved, header length
// zlib expands at most about 1032:1; a header claiming more is corrupt.
constexpr uint64_t kMaxZlibRatio = 1100;

uint64_t align_up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

std::vector<std::byte> compress(std::span<const std::byte> in, const std::string& where) {
  uLongf size = compressBound(static_cast<uLong>(in.size()));
  std::vector<std::byte> out(size);
  int rc = compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                     reinterpret_cast<const Bytef*>(in.data()), static_cast<uLong>(in.size()), 1);
  if (rc != Z_OK) throw Error(where + ": zlib compression failed (" + std::to_string(rc) + ")");
  out.resize(size);
  return out;
}

// What the data section holds for one entry (its stored bytes, maybe compressed).
struct Stored {
  Entry entry;
  std::vector<std::byte> compressed;  // empty when stored raw
  std::span<const std::byte> bytes() const {
    return compressed.empty() ? entry.bytes() : std::span<const std::byte>(compressed);
  }
};

json entry_header(const Stored& s, uint64_t offset, bool compressed) {
  const Entry& e = s.entry;
  json j = {{"path", e.path},
            {"kind", entry_kind_name(e.kind)},
            {"dtype", dtype_name(e.dtype())},
            {"shape", detail::shape_json(e.shape())},
            {"offset", offset},
            {"nbytes", e.bytes().size()},
            {"stored_nbytes", s.bytes().size()},
            {"compression", compressed ? "zlib" : "none"},
            {"xxh3", checksum_hex(s.bytes())}};
  if (e.id) j["id"] = detail::id_hex(*e.id);
  return j;
}

}  // namespace

void write_native(const Record& record, const std::string& path, const SaveOptions& options) {
  std::vector<Stored> stored;
  stored.reserve(record.entries.size());
  for (const Entry& e : record.entries) {
    Stored s{with_precision(e, options.precision), {}};
    // zlib cannot take more than 4 GiB at once; such tensors are stored raw.
    const bool can_compress = s.entry.bytes().size() < (uint64_t(1) << 32);
    if (options.compress && can_compress) {
      s.compressed = compress(s.entry.bytes(), "record: saving '" + path + "' (" + e.path + ")");
    }
    stored.push_back(std::move(s));
  }
  json header = {{"format", "ember-record"},         {"format_version", kNativeFormatVersion},
                 {"ember_version", ember_version()}, {"alignment", kNativeAlignment},
                 {"metadata", record.metadata},      {"entries", json::array()}};
  uint64_t offset = 0;
  for (const Stored& s : stored) {
    header["entries"].push_back(entry_header(s, offset, !s.compressed.empty()));
    offset = align_up(offset + s.bytes().size(), kNativeAlignment);
  }
  const std::string text = header.dump();
  const uint64_t header_len = text.size();
  const uint32_t version = kNativeFormatVersion, reserved = 0;

  AtomicFileWriter out(path);
  out.write(kMagic, 8);
  out.write(&version, 4);
  out.write(&reserved, 4);
  out.write(&header_len, 8);
  out.write(text.data(), text.size());
  out.pad_to(kNativeAlignment);
  for (const Stored& s : stored) {
    out.write(s.bytes());
    out.pad_to(kNativeAlignment);
  }
  out.commit(options.durable);
}

namespace {

struct DataSection {
  std::shared_ptr<const MappedFile> file;
  std::span<const std::byte> bytes;
};

DataSection open_native(const std::string& path, json& header) {
  auto file = MappedFile::open(path);
  const std::string where = "record: '" + path + "'";
  auto bytes = file->bytes();
  if (bytes.size() < kPrefix || std::memcmp(bytes.data(), kMagic, 8) != 0) {
    throw Error(where + " is not an Ember record (bad magic or shorter than " +
                std::to_string(kPrefix) + " bytes)");
  }
  uint32_t version;
  uint64_t header_len;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&header_len, bytes.data() + 16, 8);
  if (version == 0 || version > kNativeFormatVersion) {
    throw Error(where + ": format version " + std::to_string(version) +
                " (this Ember reads up to " + std::to_string(kNativeFormatVersion) +
                "; written by a newer Ember?)");
  }
  if (header_len > bytes.size() - kPrefix) {
    throw Error(where + ": truncated: header of " + std::to_string(header_len) +
                " bytes past the end of the file (" + std::to_string(bytes.size()) + " bytes)");
  }
  header = detail::parse_json(
      where, std::string_view(reinterpret_cast<const char*>(bytes.data()) + kPrefix, header_len));
  const uint64_t data_start =
      std::min<uint64_t>(align_up(kPrefix + header_len, kNativeAlignment), bytes.size());
  return {file, bytes.subspan(data_start)};
}

std::vector<std::byte> decompress(const std::string& where, std::span<const std::byte> in,
                                  uint64_t nbytes) {
  if (nbytes > in.size() * kMaxZlibRatio + 64) {
    throw Error(where + ": claims " + std::to_string(nbytes) + " bytes from " +
                std::to_string(in.size()) + " compressed bytes (corrupt)");
  }
  std::vector<std::byte> out(nbytes);
  uLongf size = static_cast<uLongf>(nbytes);
  int rc = uncompress(reinterpret_cast<Bytef*>(out.data()), &size,
                      reinterpret_cast<const Bytef*>(in.data()), static_cast<uLong>(in.size()));
  if (rc != Z_OK || size != nbytes) {
    throw Error(where + ": corrupt compressed data (zlib " + std::to_string(rc) + ")");
  }
  return out;
}

struct ChecksumCheck {
  std::string where;
  std::span<const std::byte> bytes;
  std::string expected;
};

// Every entry's checksum, the entries shared out over the cores (hashing a 1 GiB record on one
// thread took a fifth of its load). Throws for the first entry, in file order, that mismatches.
void verify_checksums(const std::vector<ChecksumCheck>& checks) {
  std::vector<char> bad(checks.size(), 0);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < checks.size(); i = next++)
      bad[i] = checksum_hex(checks[i].bytes) != checks[i].expected;
  };
  {
    const size_t threads =
        std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), checks.size());
    std::vector<std::jthread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  for (size_t i = 0; i < checks.size(); ++i) {
    if (bad[i]) throw Error(checks[i].where + ": checksum mismatch (the file is corrupt)");
  }
}

Entry read_entry(const std::string& file_where, const json& j, const DataSection& data,
                 const LoadOptions& options, std::vector<ChecksumCheck>& checks) {
  const std::string path = detail::field_string(file_where, j, "path");
  const std::string where = file_where + ", tensor '" + path + "'";
  DType dtype;
  try {
    dtype = dtype_from_name(detail::field_string(where, j, "dtype"));
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  const Shape shape = detail::parse_shape(where, detail::field(where, j, "shape"));
  const uint64_t offset = detail::field_u64(where, j, "offset");
  const uint64_t nbytes = detail::field_u64(where, j, "nbytes");
  const uint64_t stored = detail::field_u64(where, j, "stored_nbytes");
  const std::string compression = detail::field_string(where, j, "compression");
  check_shape_bytes(where, dtype, shape, nbytes);
  if (offset > data.bytes.size() || stored > data.bytes.size() - offset) {
    throw Error(where + ": data at offset " + std::to_string(offset) + " (+" +
                std::to_string(stored) + " bytes) lies past the end of the file (truncated?)");
  }
  auto bytes = data.bytes.subspan(offset, stored);
  if (options.verify_checksums) {
    checks.push_back({where, bytes, detail::field_string(where, j, "xxh3")});
    // Compressed data is checked before zlib sees it; the rest together after the header.
    if (compression != "none") {
      verify_checksums({checks.back()});
      checks.pop_back();
    }
  }
  std::optional<uint64_t> id;
  if (j.contains("id")) id = detail::parse_id_hex(where, detail::field_string(where, j, "id"));
  const EntryKind kind = entry_kind_from_name(detail::field_string(where, j, "kind"));
  if (compression == "zlib") {
    TensorData owned(dtype, shape, decompress(where, bytes, nbytes));
    return Entry(path, std::move(owned), id, kind);
  }
  if (compression != "none") throw Error(where + ": unknown compression '" + compression + "'");
  if (stored != nbytes) throw Error(where + ": stored size differs from the tensor's size");
  return Entry(path, dtype, shape, bytes, data.file, id, kind);
}

}  // namespace

Record read_native(const std::string& path, const LoadOptions& options) {
  json header;
  DataSection data = open_native(path, header);
  const std::string where = "record: '" + path + "'";
  Record record;
  const json& meta = detail::field(where, header, "metadata");
  if (!meta.is_object()) throw Error(where + ": metadata is not an object");
  for (const auto& [k, v] : meta.items()) {
    if (!v.is_string()) throw Error(where + ": metadata '" + k + "' is not a string");
    record.metadata[k] = v.get<std::string>();
  }
  // The writer's version, for the curious (format_version decides what this reader accepts).
  if (header.contains("ember_version") && header["ember_version"].is_string()) {
    record.metadata["ember.version"] = header["ember_version"].get<std::string>();
  }
  const json& entries = detail::field(where, header, "entries");
  if (!entries.is_array()) throw Error(where + ": entries is not an array");
  std::vector<ChecksumCheck> checks;
  for (const json& j : entries)
    record.entries.push_back(read_entry(where, j, data, options, checks));
  verify_checksums(checks);
  return record;
}

}  // namespace ember::record
