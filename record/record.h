#pragma once
// Record: what a module's visitor or an optimizer hands to a recorder, independent of nn and of
// the file format: named tensors (by dotted path) with their ParamId values and kind, plus
// string metadata. An entry's bytes are dense, row-major and little-endian; they either belong to
// the entry (a tensor downloaded for saving) or point into a mapped file kept alive by the entry.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frontend/tensor_data.h"

namespace ember::record {

// The role of a tensor: a trainable/frozen parameter, a module's untrained state (batch-norm
// statistics) or optimizer state.
enum class EntryKind : uint8_t { param, buffer, state };
const char* entry_kind_name(EntryKind k);
// Throws ember::Error for an unknown name.
EntryKind entry_kind_from_name(const std::string& name);

class Entry {
 public:
  Entry() = default;
  // Owns `data`.
  Entry(std::string path, TensorData data, std::optional<uint64_t> id = std::nullopt,
        EntryKind kind = EntryKind::param);
  // Points at `bytes`, which `owner` keeps alive (a mapped file). The caller checked that
  // bytes.size() is numel * dtype size.
  Entry(std::string path, DType dtype, Shape shape, std::span<const std::byte> bytes,
        std::shared_ptr<const void> owner, std::optional<uint64_t> id = std::nullopt,
        EntryKind kind = EntryKind::param);

  std::string path;
  std::optional<uint64_t> id;  // the ParamId's value
  EntryKind kind = EntryKind::param;

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::span<const std::byte> bytes() const { return bytes_; }
  // A host copy (one memcpy); converted to `dtype` when given.
  TensorData to_data() const;
  TensorData to_data(DType dtype) const;

 private:
  DType dtype_ = DType::F32;
  Shape shape_;
  std::span<const std::byte> bytes_;
  std::shared_ptr<const void> owner_;
};

struct Record {
  std::map<std::string, std::string> metadata;
  std::vector<Entry> entries;

  // The entry at `path`, or null.
  const Entry* find(const std::string& path) const;
  uint64_t total_bytes() const;
};

// Checks that `shape` is a plausible tensor shape of `dtype` holding `nbytes` bytes: no negative
// dim, no overflow of the element count or byte size. Throws ember::Error naming `where` (the file
// and tensor) otherwise.
void check_shape_bytes(const std::string& where, DType dtype, const Shape& shape, uint64_t nbytes);
// numel * dtype size, or throws (naming `where`) when it overflows 64 bits.
uint64_t checked_nbytes(const std::string& where, DType dtype, const Shape& shape);

}  // namespace ember::record
