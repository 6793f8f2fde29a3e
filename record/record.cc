#include "record/record.h"

#include <cstring>

namespace ember::record {

const char* entry_kind_name(EntryKind k) {
  switch (k) {
    case EntryKind::param:
      return "param";
    case EntryKind::buffer:
      return "buffer";
    case EntryKind::state:
      return "state";
  }
  return "?";
}

EntryKind entry_kind_from_name(const std::string& name) {
  if (name == "param") return EntryKind::param;
  if (name == "buffer") return EntryKind::buffer;
  if (name == "state") return EntryKind::state;
  throw Error("record: unknown entry kind '" + name + "'");
}

Entry::Entry(std::string p, TensorData data, std::optional<uint64_t> i, EntryKind k)
    : path(std::move(p)), id(i), kind(k), dtype_(data.dtype()), shape_(data.shape()) {
  auto owned = std::make_shared<TensorData>(std::move(data));
  bytes_ = {owned->bytes().data(), owned->bytes().size()};
  owner_ = std::move(owned);
}

Entry::Entry(std::string p, DType dtype, Shape shape, std::span<const std::byte> bytes,
             std::shared_ptr<const void> owner, std::optional<uint64_t> i, EntryKind k)
    : path(std::move(p)),
      id(i),
      kind(k),
      dtype_(dtype),
      shape_(std::move(shape)),
      bytes_(bytes),
      owner_(std::move(owner)) {}

TensorData Entry::to_data() const {
  // Constructed from the range: one pass over the bytes (a sized vector would zero them first).
  return TensorData(dtype_, shape_, std::vector<std::byte>(bytes_.begin(), bytes_.end()));
}

TensorData Entry::to_data(DType dtype) const {
  TensorData d = to_data();
  return dtype == dtype_ ? d : d.convert(dtype);
}

const Entry* Record::find(const std::string& path) const {
  for (const Entry& e : entries) {
    if (e.path == path) return &e;
  }
  return nullptr;
}

uint64_t Record::total_bytes() const {
  uint64_t n = 0;
  for (const Entry& e : entries) n += e.bytes().size();
  return n;
}

uint64_t checked_nbytes(const std::string& where, DType dtype, const Shape& shape) {
  uint64_t n = dtype_size(dtype);
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape[i] < 0) {
      throw Error(where + ": negative dimension in shape " + shape.to_string());
    }
    const auto d = static_cast<uint64_t>(shape[i]);
    if (d != 0 && n > (uint64_t(1) << 62) / d) {
      throw Error(where + ": absurd shape " + shape.to_string() + " (byte size overflows)");
    }
    n *= d;
  }
  return n;
}

void check_shape_bytes(const std::string& where, DType dtype, const Shape& shape, uint64_t nbytes) {
  const uint64_t want = checked_nbytes(where, dtype, shape);
  if (want != nbytes) {
    throw Error(where + ": " + std::string(dtype_name(dtype)) + shape.to_string() + " needs " +
                std::to_string(want) + " bytes, the file gives " + std::to_string(nbytes));
  }
}

}  // namespace ember::record
