#include "jit/matmul_tuning.h"

#include <map>
#include <mutex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "autotune/mode.h"
#include "autotune/store.h"
#include "autotune/tuner.h"
#include "jit/dump.h"
#include "jit/lower.h"

namespace ember::jit {
namespace {

bool tunable(const runtime::Backend& b) {
  return b.kind() == runtime::DeviceKind::Cuda ||
         (b.kind() == runtime::DeviceKind::Vulkan && b.name().find("CPU") == std::string::npos);
}

struct Problem {
  int64_t m, n, k, batch;
};

Problem problem_of(const ir::Graph& g, ir::ValueId mm) {
  const Shape& s = g.type(mm).shape;
  int r = s.rank();
  int64_t m = s[r - 2], n = s[r - 1];
  int64_t k = g.type(g.node(mm).inputs[0]).shape[r - 1];
  return {m, n, k, m * n == 0 ? 0 : s.numel() / (m * n)};
}

// Winners already read, by key: a flush must not query SQLite per matmul.
std::mutex g_memo_mutex;
std::map<std::string, int> g_memo;

int parse_block(const std::string& config) {
  int r = 0;
  if (config.rfind("block=", 0) == 0 && absl::SimpleAtoi(config.substr(6), &r)) return r;
  return 0;
}

// The cached winner for `key`, or 0.
int cached_block(const std::string& key) {
  {
    std::lock_guard lock(g_memo_mutex);
    if (auto it = g_memo.find(key); it != g_memo.end()) return it->second;
  }
  int r = 0;
  if (auto e = autotune::process_store().lookup(key)) r = parse_block(e->winner);
  std::lock_guard lock(g_memo_mutex);
  g_memo[key] = r;
  return r;
}

}  // namespace

autotune::TuneKey matmul_tune_key(const ir::Graph& g, ir::ValueId mm,
                                  const runtime::Backend& backend) {
  Problem p = problem_of(g, mm);
  return {
      "matmul", backend.fingerprint(), {p.m, p.n, p.k, p.batch}, {dtype_name(g.type(mm).dtype)}};
}

namespace {

// CPU Vulkan drivers (lavapipe) run a workgroup's threads as SIMD lanes and its barriers
// slowly: the largest block, the fewest workgroups and barriers per flop, is fastest there
// (512^3 tuned on lavapipe: block 8 in 207 ms, the GPU heuristic's block 2 in 760 ms).
int heuristic_block(const runtime::Backend& backend, const Problem& p) {
  return tunable(backend) ? matmul_block(p.m, p.n, p.batch) : kMatmulBlocks[3];
}

}  // namespace

int chosen_matmul_block(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend) {
  Problem p = problem_of(g, mm);
  int heuristic = heuristic_block(backend, p);
  if (autotune::mode(tunable(backend)) == autotune::Mode::off) return heuristic;
  int cached = cached_block(matmul_tune_key(g, mm, backend).to_string());
  return cached > 0 ? cached : heuristic;
}

bool matmul_needs_tuning(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend) {
  if (autotune::mode(tunable(backend)) != autotune::Mode::on) return false;
  return cached_block(matmul_tune_key(g, mm, backend).to_string()) == 0;
}

int tune_matmul_block(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend,
                      const std::function<double(int)>& time_block) {
  std::string key = matmul_tune_key(g, mm, backend).to_string();
  std::vector<std::string> configs;
  for (int r : kMatmulBlocks) configs.push_back(absl::StrCat("block=", r));
  autotune::Entry e = autotune::tune(key, "matmul", configs, [&](const std::string& config) {
    return time_block(parse_block(config));
  });
  Problem p = problem_of(g, mm);
  int winner = parse_block(e.winner);
  if (winner == 0) winner = heuristic_block(backend, p);
  autotune::process_store().record(e);
  {
    std::lock_guard lock(g_memo_mutex);
    g_memo[key] = winner;
  }
  if (dump_enabled("autotune")) {
    std::string text = absl::StrCat("autotune ", key, " -> ", e.winner, "\n");
    for (const auto& c : e.candidates) {
      absl::StrAppend(&text,
                      absl::StrFormat("  %-8s %10.4f ms  %s\n", c.config, c.time_ms, c.status));
    }
    dump("autotune", "autotune.txt", text);
  }
  return winner;
}

}  // namespace ember::jit
