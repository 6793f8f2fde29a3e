#include "kernels/tuning.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "autotune/store.h"
#include "autotune/tuner.h"
#include "jit/dump.h"

namespace ember::jit {

bool tunes_on(const runtime::Backend& backend) {
  return backend.kind() != runtime::DeviceKind::Vulkan || backend.runs_on_cpu();
}
namespace {

// Winners already read, by key: a flush must not query SQLite per kernel.
thread_local bool g_scanning = false;

std::mutex g_memo_mutex;
std::map<std::string, std::string> g_memo;
std::atomic<uint64_t> g_winners_generation{0};

}  // namespace

std::string cached_winner(const std::string& key) {
  {
    std::lock_guard lock(g_memo_mutex);
    if (auto it = g_memo.find(key); it != g_memo.end()) return it->second;
  }
  std::string winner;
  if (auto e = autotune::process_store().lookup(key)) winner = e->winner;
  std::lock_guard lock(g_memo_mutex);
  g_memo[key] = winner;
  return winner;
}

void discard_winner(const std::string& key, const std::string& winner) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    std::fprintf(stderr,
                 "ember: autotune winner '%s' of %s is not valid here; it is discarded (further "
                 "ones silently)\n",
                 winner.c_str(), key.c_str());
  }
  autotune::process_store().clear(key);
  std::lock_guard lock(g_memo_mutex);
  g_memo[key] = "";
  g_winners_generation.fetch_add(1);
}

uint64_t winners_generation() { return g_winners_generation.load(); }

std::string tune_and_record(const std::string& key, const std::string& family,
                            const std::vector<std::string>& configs, const std::string& fallback,
                            const std::function<double(const std::string&)>& measure) {
  if (g_scanning) {
    for (const std::string& c : configs) measure(c);
    return fallback;
  }
  autotune::Entry e = autotune::tune(key, family, configs, measure);
  autotune::process_store().record(e);
  std::string winner = e.winner.empty() ? fallback : e.winner;
  {
    std::lock_guard lock(g_memo_mutex);
    g_memo[key] = winner;
    g_winners_generation.fetch_add(1);
  }
  if (dump_enabled("autotune")) {
    std::string text = absl::StrCat("autotune ", key, " -> ", e.winner, "\n");
    for (const auto& c : e.candidates) {
      absl::StrAppend(&text,
                      absl::StrFormat("  %-14s %10.4f ms  %s\n", c.config, c.time_ms, c.status));
    }
    dump("autotune", "autotune.txt", text);
  }
  return winner;
}

CandidateScan::CandidateScan() : was_(g_scanning) { g_scanning = true; }
CandidateScan::~CandidateScan() { g_scanning = was_; }

int forced_variant(const char* name, const std::vector<int>& allowed) {
  const char* env = std::getenv(name);
  int r = env ? std::atoi(env) : 0;
  return std::find(allowed.begin(), allowed.end(), r) != allowed.end() ? r : 0;
}

}  // namespace ember::jit
