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

// EMBER_MATMUL_BLOCK=1|2|4|8 forces a block on every device (tests run every variant);
// EMBER_MMA_TILE=1..N a tensor-core tile. 0 when unset.
int forced(const char* name, int count, const int* allowed) {
  const char* env = std::getenv(name);
  int r = env ? std::atoi(env) : 0;
  for (int i = 0; i < count; ++i) {
    if (r == (allowed ? allowed[i] : i + 1)) return r;
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

// The autotune store spells a variant "block=R" (SIMT) or "tile=BMxBNsS" (tensor cores).
std::string variant_name(bool mma, int v) {
  if (!mma) return absl::StrCat("block=", v);
  const MmaTile& t = kMmaTiles[v - 1];
  return absl::StrCat("tile=", t.warps_m * t.frags_m * 16, "x", t.warps_n * t.frags_n * 8, "k",
                      t.row_bytes, "Bs", t.stages);
}

int parse_variant(bool mma, const std::string& config) {
  if (!mma) {
    for (int r : kMatmulBlocks) {
      if (config == variant_name(false, r)) return r;
    }
    return 0;
  }
  for (int i = 1; i <= kMmaTileCount; ++i) {
    if (config == variant_name(true, i)) return i;
  }
  return 0;
}

// Winners already read, by key: a flush must not query SQLite per matmul.
std::mutex g_memo_mutex;
std::map<std::string, int> g_memo;

// The cached winner for `key`, or 0.
int cached_variant(const std::string& key, bool mma) {
  {
    std::lock_guard lock(g_memo_mutex);
    if (auto it = g_memo.find(key); it != g_memo.end()) return it->second;
  }
  int r = 0;
  if (auto e = autotune::process_store().lookup(key)) r = parse_variant(mma, e->winner);
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

int heuristic_variant(const runtime::Backend& backend, const Problem& p, bool mma) {
  return mma ? mma_tile_heuristic(p.m, p.n, p.batch) : heuristic_block(backend, p);
}

}  // namespace

bool wants_mma(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend) {
  if (!tensor_cores_enabled() || !has_tensor_cores(backend)) return false;
  DType t = g.type(mm).dtype;
  return t == DType::F16 || t == DType::BF16 || (t == DType::F32 && allow_tf32());
}

autotune::TuneKey matmul_tune_key(const ir::Graph& g, ir::ValueId mm,
                                  const runtime::Backend& backend) {
  Problem p = problem_of(g, mm);
  bool mma = wants_mma(g, mm, backend);
  DType t = g.type(mm).dtype;
  return {mma ? "matmul_mma" : "matmul",
          backend.fingerprint(),
          {p.m, p.n, p.k, p.batch},
          {mma && t == DType::F32 ? "tf32" : dtype_name(t)}};
}

std::vector<MatmulChoice> choose_matmul_blocks(const ir::Graph& g,
                                               const runtime::Backend& backend) {
  std::vector<MatmulChoice> choices(g.size());
  const int forced_block = forced("EMBER_MATMUL_BLOCK", 4, kMatmulBlocks);
  const int forced_tile = forced("EMBER_MMA_TILE", kMmaTileCount, nullptr);
  autotune::Mode mode = autotune::mode(!backend.runs_on_cpu());
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    if (g.node(v).op != ir::OpKind::Matmul) continue;
    MatmulChoice& c = choices[v];
    Problem p = problem_of(g, v);
    bool mma = wants_mma(g, v, backend);
    c.block = forced_block > 0 ? forced_block : heuristic_block(backend, p);
    int forced_variant = mma ? forced_tile : forced_block;
    int& variant = mma ? c.mma : c.block;
    if (forced_variant > 0 || mode == autotune::Mode::off) {
      variant = forced_variant > 0 ? forced_variant : heuristic_variant(backend, p, mma);
      continue;
    }
    std::string key = matmul_tune_key(g, v, backend).to_string();
    variant = cached_variant(key, mma);
    if (variant > 0) continue;
    variant = heuristic_variant(backend, p, mma);
    if (mode == autotune::Mode::on) c.tune_key = std::move(key);
  }
  return choices;
}

int tune_matmul(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend, bool mma,
                const std::function<double(int)>& time_variant) {
  std::string key = matmul_tune_key(g, mm, backend).to_string();
  std::vector<std::string> configs;
  if (mma) {
    for (int i = 1; i <= kMmaTileCount; ++i) configs.push_back(variant_name(true, i));
  } else {
    for (int r : kMatmulBlocks) configs.push_back(variant_name(false, r));
  }
  autotune::Entry e = autotune::tune(
      key, mma ? "matmul_mma" : "matmul", configs,
      [&](const std::string& config) { return time_variant(parse_variant(mma, config)); });
  int winner = parse_variant(mma, e.winner);
  if (winner == 0) winner = heuristic_variant(backend, problem_of(g, mm), mma);
  autotune::process_store().record(e);
  {
    std::lock_guard lock(g_memo_mutex);
    g_memo[key] = winner;
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

}  // namespace ember::jit
