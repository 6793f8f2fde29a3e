#include "record/checksum.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>

namespace ember::record {

std::string checksum_hex(std::span<const std::byte> bytes) {
  const XXH64_hash_t h = XXH3_64bits(bytes.data(), bytes.size());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace ember::record
