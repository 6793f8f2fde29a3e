#pragma once
// Ember's native binary record (.ember):
//
//   bytes 0..7    magic "EMBERREC"
//   bytes 8..11   format version (u32, little-endian)
//   bytes 12..15  reserved (0)
//   bytes 16..23  header length H (u64)
//   bytes 24..    header: JSON (Ember version, metadata, and per tensor its path, kind, ParamId,
//                 dtype, shape, offset, byte sizes, compression and an XXH3 checksum)
//   then zero padding to a multiple of 64, then the data: each tensor at an offset (from the data's
//   start) that is a multiple of 64, so a mapped file's tensors are aligned for any dtype and load
//   with no parsing beyond the header.
#include <string>

#include "record/options.h"
#include "record/record.h"

namespace ember::record {

inline constexpr uint32_t kNativeFormatVersion = 1;
inline constexpr uint64_t kNativeAlignment = 64;

void write_native(const Record& record, const std::string& path, const SaveOptions& options);
// Maps the file; uncompressed tensors point into the mapping. Throws ember::Error naming the file
// and the problem for anything truncated, corrupt or implausible.
Record read_native(const std::string& path, const LoadOptions& options);

}  // namespace ember::record
