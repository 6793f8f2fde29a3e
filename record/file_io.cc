#include "record/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "ir/error.h"

namespace ember::record {

namespace {
std::string errno_text() { return std::strerror(errno); }
}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("record: cannot open '" + path + "': " + errno_text());
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("record: '" + path + "' is not a regular file");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  const std::byte* data = nullptr;
  if (size > 0) {
    // Populated up front: a record is read whole, and one populate is cheaper than a fault per
    // page.
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      throw Error("record: cannot map '" + path + "': " + errno_text());
    }
    data = static_cast<const std::byte*>(p);
  }
  ::close(fd);  // the mapping keeps the file open
  return std::shared_ptr<const MappedFile>(new MappedFile(path, data, size));
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  static std::atomic<uint64_t> counter{0};
  tmp_path_ = path_ + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error("record: cannot create '" + tmp_path_ + "' to save '" + path_ +
                "': " + errno_text());
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_path_.c_str());
}

void AtomicFileWriter::fail(const std::string& what) const {
  throw Error("record: " + what + " '" + path_ + "' (temporary '" + tmp_path_ +
              "'): " + errno_text());
}

void AtomicFileWriter::write(std::span<const std::byte> bytes) {
  const std::byte* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    // Linux writes at most about 2 GiB per call.
    const size_t chunk = std::min<size_t>(left, size_t(1) << 30);
    ssize_t n = ::write(fd_, p, chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write");
    p += n;
    left -= static_cast<size_t>(n);
    position_ += static_cast<uint64_t>(n);
  }
}

void AtomicFileWriter::pad_to(uint64_t alignment) {
  const uint64_t rem = position_ % alignment;
  if (rem == 0) return;
  std::vector<std::byte> zeros(alignment - rem);
  write(zeros);
}

void AtomicFileWriter::commit(bool durable) {
  if (durable && ::fsync(fd_) != 0) fail("cannot sync");
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail("cannot close");
  }
  fd_ = -1;
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0) fail("cannot rename to");
  committed_ = true;
}

}  // namespace ember::record
