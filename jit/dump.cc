#include "jit/dump.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "absl/strings/str_split.h"

namespace ember::jit {

bool dump_enabled(const char* what) {
  const char* env = std::getenv("EMBER_DUMP");
  if (env == nullptr) return false;
  for (absl::string_view part : absl::StrSplit(env, ',')) {
    if (part == what || part == "all") return true;
  }
  return false;
}

void dump(const char* what, const std::string& name, const std::string& text) {
  const char* dir = std::getenv("EMBER_DUMP_DIR");
  if (dir == nullptr || *dir == '\0') {
    std::cerr << "== ember " << what << " " << name << "\n" << text;
    return;
  }
  std::filesystem::create_directories(dir);
  std::ofstream(std::filesystem::path(dir) / name) << text;
}

}  // namespace ember::jit
