#include "jit/matmul_tuning.h"

#include <cstdlib>
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
#include "jit/matmul_precision.h"

namespace ember::jit {
namespace {

// EMBER_MATMUL_BLOCK=1|2|4|8 forces a block on every device (tests run every variant); 0 when
// unset.
int forced_block() {
  const char* forced = std::getenv("EMBER_MATMUL_BLOCK");
  int r = forced ? std::atoi(forced) : 0;
  for (int b : kMatmulBlocks) {
    if (r == b) return r;
  }
  return 0;
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

// CPU Vulkan drivers (lavapipe) run a workgroup's threads as SIMD lanes and its barriers
// slowly: the largest block, the fewest workgroups and barriers per flop, is fastest there
// (512^3 tuned on lavapipe: block 8 in 207 ms, the GPU heuristic's block 2 in 760 ms).
int heuristic_block(const runtime::Backend& backend, const Problem& p) {
  return backend.runs_on_cpu() ? kMatmulBlocks[3] : matmul_block(p.m, p.n, p.batch);
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

// Tensor cores (mma.sync) exist from sm_80 on.
bool has_tensor_cores(const runtime::Backend& backend) {
  if (backend.kind() != runtime::DeviceKind::Cuda) return false;
  const std::string arch = backend.target();
  int sm = 0;
  return arch.rfind("sm_", 0) == 0 && absl::SimpleAtoi(arch.substr(3, 2), &sm) && sm >= 80;
}

bool wants_mma(const ir::Graph& g, ir::ValueId mm, bool tensor_cores) {
  if (!tensor_cores) return false;
  DType t = g.type(mm).dtype;
  return t == DType::F16 || t == DType::BF16 || (t == DType::F32 && allow_tf32());
}

}  // namespace

autotune::TuneKey matmul_tune_key(const ir::Graph& g, ir::ValueId mm,
                                  const runtime::Backend& backend) {
  Problem p = problem_of(g, mm);
  return {
      "matmul", backend.fingerprint(), {p.m, p.n, p.k, p.batch}, {dtype_name(g.type(mm).dtype)}};
}

std::vector<MatmulChoice> choose_matmul_blocks(const ir::Graph& g,
                                               const runtime::Backend& backend) {
  std::vector<MatmulChoice> choices(g.size());
  int forced = forced_block();
  autotune::Mode mode = autotune::mode(!backend.runs_on_cpu());
  const bool tensor_cores = tensor_cores_enabled() && has_tensor_cores(backend);
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    if (g.node(v).op != ir::OpKind::Matmul) continue;
    MatmulChoice& c = choices[v];
    c.mma = wants_mma(g, v, tensor_cores);
    if (c.mma) {
      // The tensor-core tile has one shape today; the block is the SIMT fallback's.
      c.block = forced > 0 ? forced : heuristic_block(backend, problem_of(g, v));
      continue;
    }
    if (forced > 0 || mode == autotune::Mode::off) {
      c.block = forced > 0 ? forced : heuristic_block(backend, problem_of(g, v));
      continue;
    }
    std::string key = matmul_tune_key(g, v, backend).to_string();
    c.block = cached_block(key);
    if (c.block > 0) continue;
    c.block = heuristic_block(backend, problem_of(g, v));
    if (mode == autotune::Mode::on) c.tune_key = std::move(key);
  }
  return choices;
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
