#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "ir/error.h"
#include "train/event_file.h"

namespace ember::train::detail {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("FileCheckpointer: cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

uint32_t file_crc32c(const std::string& path) {
  const std::string bytes = read_text(path);
  return crc32c(bytes.data(), bytes.size());
}

void write_text_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw Error("FileCheckpointer: cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace ember::train::detail
