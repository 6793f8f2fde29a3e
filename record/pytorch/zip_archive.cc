#include "record/pytorch/zip_archive.h"

#include <zip.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "ir/error.h"

namespace ember::record::pytorch {

namespace {
// Deflate expands at most about 1032:1; an entry claiming more is corrupt.
constexpr uint64_t kMaxDeflateRatio = 1100;
}  // namespace

ZipArchive::ZipArchive(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path_, ec);
  if (ec) throw Error("record: cannot open '" + path_ + "': " + ec.message());
  int err = 0;
  archive_ = zip_open(path_.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (!archive_) {
    zip_error_t error;
    zip_error_init_with_code(&error, err);
    std::string what = zip_error_strerror(&error);
    zip_error_fini(&error);
    throw Error("record: '" + path_ + "' is not a readable zip archive (PyTorch .pt): " + what);
  }
  const zip_int64_t n = zip_get_num_entries(archive_, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(archive_, static_cast<zip_uint64_t>(i), 0);
    if (name) names_.emplace_back(name);
  }
}

ZipArchive::~ZipArchive() {
  if (archive_) zip_discard(archive_);
}

bool ZipArchive::contains(const std::string& name) const {
  return std::find(names_.begin(), names_.end(), name) != names_.end();
}

std::vector<std::byte> ZipArchive::read(const std::string& name) const {
  const std::string where = "record: '" + path_ + "', entry '" + name + "'";
  const zip_int64_t index = zip_name_locate(archive_, name.c_str(), 0);
  if (index < 0) throw Error(where + ": not in the archive");
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(archive_, static_cast<zip_uint64_t>(index), 0, &st) != 0 ||
      !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE)) {
    throw Error(where + ": cannot read its directory entry");
  }
  const bool stored = (st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method == ZIP_CM_STORE;
  if (st.comp_size > file_size_ ||
      st.size > (stored ? file_size_ : st.comp_size * kMaxDeflateRatio + 1024)) {
    throw Error(where + ": claims " + std::to_string(st.size) + " bytes in a file of " +
                std::to_string(file_size_) + " (corrupt)");
  }
  std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(
      zip_fopen_index(archive_, static_cast<zip_uint64_t>(index), 0), zip_fclose);
  if (!file) throw Error(where + ": cannot open: " + zip_strerror(archive_));
  std::vector<std::byte> out(st.size);
  uint64_t done = 0;
  while (done < st.size) {
    const zip_int64_t n = zip_fread(file.get(), out.data() + done, st.size - done);
    if (n <= 0) {
      throw Error(where + ": corrupt or truncated: " + zip_file_strerror(file.get()));
    }
    done += static_cast<uint64_t>(n);
  }
  // Reading past the end makes libzip check the CRC of what it read.
  std::byte extra;
  if (zip_fread(file.get(), &extra, 1) != 0) {
    throw Error(where + ": corrupt (CRC or size mismatch): " + zip_file_strerror(file.get()));
  }
  return out;
}

}  // namespace ember::record::pytorch
