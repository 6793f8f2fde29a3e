#pragma once
// A read-only zip archive (libzip), as PyTorch's torch.save writes them: entry names and whole
// entries read into memory, with sizes checked against the file before anything is allocated.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct zip;

namespace ember::record::pytorch {

class ZipArchive {
 public:
  // Throws ember::Error naming the file when it is not a readable zip archive.
  explicit ZipArchive(std::string path);
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  const std::vector<std::string>& names() const { return names_; }
  bool contains(const std::string& name) const;
  // The entry's uncompressed bytes; throws naming the file and entry when absent, implausibly
  // large for the archive, or corrupt (CRC mismatch, truncated).
  std::vector<std::byte> read(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  uint64_t file_size_ = 0;
  zip* archive_ = nullptr;
  std::vector<std::string> names_;
};

}  // namespace ember::record::pytorch
