#include "jit/dump.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>

#include "absl/strings/str_split.h"

namespace ember::jit {

namespace {

// Whether the comma list in environment variable `var` names `what` (or "all").
bool listed(const char* var, const char* what) {
  const char* env = std::getenv(var);
  if (env == nullptr) return false;
  for (absl::string_view part : absl::StrSplit(env, ',')) {
    if (part == what || part == "all") return true;
  }
  return false;
}

}  // namespace

bool dump_enabled(const char* what) { return listed("EMBER_DUMP", what); }

bool log_enabled(const char* what) { return listed("EMBER_LOG", what); }

namespace {

// Dumps are diagnostics: one that cannot be written is reported once per process, then skipped;
// it never fails the flush that made it.
void warn_once(const std::string& why) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    std::cerr << "ember: EMBER_DUMP_DIR: " << why << "; dumps are skipped\n";
  }
}

}  // namespace

void dump(const char* what, const std::string& name, const std::string& text) {
  const char* dir = std::getenv("EMBER_DUMP_DIR");
  if (dir == nullptr || *dir == '\0') {
    std::cerr << "== ember " << what << " " << name << "\n" << text;
    return;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return warn_once("cannot create " + std::string(dir) + ": " + ec.message());
  // Written under a temporary name and renamed: a reader never sees half a file.
  fs::path path = fs::path(dir) / name;
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out) return warn_once("cannot write " + tmp.string());
  }
  fs::rename(tmp, path, ec);
  if (ec) warn_once("cannot rename " + tmp.string() + ": " + ec.message());
}

}  // namespace ember::jit
