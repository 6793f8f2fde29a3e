#pragma once
// Files for records: a read-only mapping of a whole file (tensor data is used in place, no copy
// on open) and a writer that builds the file under a temporary name and renames it over the final
// one only once everything is on disk, so a crash mid-save never leaves a half-written checkpoint.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace ember::record {

class MappedFile {
 public:
  // Maps `path` read-only; throws ember::Error naming the file when it cannot be opened.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }

 private:
  MappedFile(std::string path, const std::byte* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  std::string path_;
  const std::byte* data_;
  size_t size_;
};

class AtomicFileWriter {
 public:
  // Creates `path`.tmp.<pid>.<n> next to `path`; throws ember::Error naming the file on failure.
  explicit AtomicFileWriter(std::string path);
  // Removes the temporary file unless commit() ran.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::span<const std::byte> bytes);
  void write(const void* data, size_t size) { write({static_cast<const std::byte*>(data), size}); }
  // Zero bytes up to the next multiple of `alignment` from the start of the file.
  void pad_to(uint64_t alignment);
  uint64_t position() const { return position_; }
  // Renames the temporary file to the final name, after an fsync when `durable` (so a power
  // loss, not only a crash of this process, cannot leave a truncated file under the final name).
  void commit(bool durable = true);

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::string path_, tmp_path_;
  int fd_ = -1;
  uint64_t position_ = 0;
  bool committed_ = false;
};

}  // namespace ember::record
