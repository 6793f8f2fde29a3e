#pragma once
// Reader for IDX files, the format of MNIST and Fashion-MNIST: a 4-byte magic (two zero bytes,
// an element type code, the rank), one big-endian uint32 per dimension, then the elements in
// row-major order. Files may be gzip-compressed or plain; both are read the same way.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::data {

// The one element type MNIST-style data sets use; other IDX types are rejected.
inline constexpr uint8_t kIdxUnsignedByte = 0x08;
// IDX allows up to 255 dimensions; real data sets use 1 to 4, so a larger rank is a corrupt header.
inline constexpr int kIdxMaxRank = 8;

struct IdxArray {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;  // row-major, product(dims) bytes

  int64_t numel() const;
};

// Reads a whole IDX file of unsigned bytes (gzip or plain). Throws ember::Error, naming the file,
// when it cannot be opened, the magic or element type is wrong, the rank is 0 or above
// kIdxMaxRank, the header or data is shorter than declared, or bytes follow the declared data
// (a size mismatch means the header does not describe the file, so nothing is guessed).
IdxArray read_idx(const std::string& path);

}  // namespace ember::data
