#pragma once
// XXH3-64 of a tensor's stored bytes, as 16 hex digits (tens of GB/s: verifying a checksum costs
// little next to reading the file).
#include <cstddef>
#include <span>
#include <string>

namespace ember::record {

std::string checksum_hex(std::span<const std::byte> bytes);

}  // namespace ember::record
