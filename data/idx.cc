#include "data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include "ir/error.h"

namespace ember::data {
namespace {

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// Data is read in chunks so that a header claiming gigabytes in a small file fails on the
// short read instead of allocating the claimed size first.
constexpr size_t kChunkBytes = size_t{1} << 20;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error("read_idx: " + path + ": " + what);
}

std::string hex(const uint8_t* bytes, size_t n) {
  std::string out = "0x";
  char buf[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02X", bytes[i]);
    out += buf;
  }
  return out;
}

GzFile open_gz(const std::string& path) {
  errno = 0;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    fail(path,
         std::string("cannot open") + (errno != 0 ? ": " + std::string(std::strerror(errno)) : ""));
  }
  return GzFile(f);
}

// Reads up to n bytes into dst; returns how many arrived (fewer only at end of input, which is
// also how zlib reports a gzip stream cut short). A corrupt stream or an unreadable file is
// reported with zlib's message.
size_t read_some(gzFile f, const std::string& path, uint8_t* dst, size_t n) {
  size_t got = 0;
  while (got < n) {
    unsigned want = static_cast<unsigned>(std::min<size_t>(n - got, kChunkBytes));
    int r = gzread(f, dst + got, want);
    if (r < 0) {
      int code = 0;
      const char* msg = gzerror(f, &code);
      fail(path, "read error after " + std::to_string(got) + " bytes: " + msg);
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

void read_header_bytes(gzFile f, const std::string& path, uint8_t* dst, size_t n,
                       const char* part) {
  size_t got = read_some(f, path, dst, n);
  if (got != n) {
    fail(path, std::string("truncated header: ") + part + " needs " + std::to_string(n) +
                   " bytes, got " + std::to_string(got));
  }
}

std::vector<int64_t> read_dims(gzFile f, const std::string& path) {
  uint8_t magic[4];
  read_header_bytes(f, path, magic, 4, "magic");
  if (magic[0] != 0 || magic[1] != 0) {
    fail(path, "bad magic " + hex(magic, 4) + " (an IDX file starts with two zero bytes)");
  }
  if (magic[2] != kIdxUnsignedByte) {
    fail(path, "unsupported element type " + hex(&magic[2], 1) + " (only " +
                   hex(&kIdxUnsignedByte, 1) + ", unsigned byte, is supported)");
  }
  int rank = magic[3];
  if (rank == 0 || rank > kIdxMaxRank) {
    fail(path, "bad rank " + std::to_string(rank) + " (expected 1 to " +
                   std::to_string(kIdxMaxRank) + " dims)");
  }
  std::vector<uint8_t> raw(4 * static_cast<size_t>(rank));
  read_header_bytes(f, path, raw.data(), raw.size(), "dimension sizes");
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const uint8_t* p = &raw[4 * i];
    dims[i] = (int64_t{p[0]} << 24) | (int64_t{p[1]} << 16) | (int64_t{p[2]} << 8) | p[3];
  }
  return dims;
}

// The byte count the header declares. Eight uint32 dims can overflow int64 (numel's type), which
// only a corrupt header does.
size_t declared_bytes(const std::vector<int64_t>& dims, const std::string& path) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      fail(path, "declared element count overflows int64");
    }
    n *= d;
  }
  return static_cast<size_t>(n);
}

std::vector<uint8_t> read_data(gzFile f, const std::string& path, size_t expected) {
  std::vector<uint8_t> data;
  while (data.size() < expected) {
    size_t have = data.size();
    size_t step = std::min(expected - have, kChunkBytes);
    data.resize(have + step);
    size_t got = read_some(f, path, data.data() + have, step);
    if (got != step) {
      fail(path, "truncated data: expected " + std::to_string(expected) + " bytes of data, got " +
                     std::to_string(have + got));
    }
  }
  uint8_t extra;
  if (read_some(f, path, &extra, 1) != 0) {
    fail(path, "trailing bytes after the " + std::to_string(expected) +
                   " bytes of data the header declares");
  }
  return data;
}

}  // namespace

int64_t IdxArray::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

IdxArray read_idx(const std::string& path) {
  GzFile f = open_gz(path);
  IdxArray out;
  out.dims = read_dims(f.get(), path);
  out.data = read_data(f.get(), path, declared_bytes(out.dims, path));
  return out;
}

}  // namespace ember::data
