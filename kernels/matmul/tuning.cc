#include "kernels/matmul/tuning.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "autotune/mode.h"
#include "kernels/matmul/precision.h"
#include "kernels/matmul/tiles.h"
#include "kernels/tuning.h"

namespace ember::jit {

// Tensor cores (mma.sync) exist from sm_80 on.
bool has_tensor_cores(const runtime::Backend& backend) {
  if (backend.kind() != runtime::DeviceKind::Cuda) return false;
  const std::string arch = backend.target();
  if (arch.rfind("sm_", 0) != 0) return false;
  // Every digit after "sm_" (sm_100 and sm_120 are 100 and 120, not 10 and 12), a suffix ("a")
  // aside.
  size_t end = 3;
  while (end < arch.size() && arch[end] >= '0' && arch[end] <= '9') ++end;
  int sm = 0;
  return absl::SimpleAtoi(arch.substr(3, end - 3), &sm) && sm >= 80;
}

namespace {

struct Problem {
  int64_t m, n, k, batch;
  bool f32 = false;
};

Problem problem_of(const ir::Graph& g, ir::ValueId mm) {
  const Shape& s = g.type(mm).shape;
  int r = s.rank();
  int64_t m = s[r - 2], n = s[r - 1];
  int64_t k = g.type(g.node(mm).inputs[0]).shape[r - 1];
  return {m, n, k, m * n == 0 ? 0 : s.numel() / (m * n), g.type(mm).dtype == DType::F32};
}

// CPU Vulkan drivers (lavapipe) run a workgroup's threads as SIMD lanes and its barriers
// slowly: the largest block, the fewest workgroups and barriers per flop, is fastest there
// (512^3 tuned on lavapipe: block 8 in 207 ms, the GPU heuristic's block 2 in 760 ms).

int heuristic_block(const runtime::Backend& backend, const Problem& p) {
  if (backend.runs_on_cpu()) return 8;
  const int block = matmul_block(p.m, p.n, p.batch);
  // On CUDA (sm_80 on: cp.async, 96 KiB of shared memory) the f32 vector tile (128 x 256)
  // replaces the SIMT template where it still gives a large GPU a tile per SM (H100, 4096^3 in
  // ember_bench: 3.15-3.17 ms against 3.76 for the SIMT template, session 8). Where the wide
  // tile leaves SMs idle, the narrow one (128 x 128) takes outputs that give it a tile per SM
  // (H200, mlp_train_step's 1024 x 2048 forwards: 0.244-0.277 ms against 0.285-0.300, where the
  // template's heuristic block was 4; session 29, calls 5 and 6). Operands a tile cannot read
  // take the template's own block (operands.cc, admitted).
  if (!p.f32 || !has_tensor_cores(backend)) return block;
  const int64_t rows = p.batch * ((p.m + 127) / 128);
  if (rows * ((p.n + 255) / 256) >= 128) return kVectorTileBlock;
  return rows * ((p.n + 127) / 128) >= 128 ? kNarrowVectorTileBlock : block;
}

// The SIMT variants `backend` runs for `dtype`: the vector tile only for f32 on CUDA sm_80 and
// later (elsewhere it would run the block-8 template again, and tuning would time that twice).
std::vector<int> simt_blocks(const runtime::Backend& backend, DType dtype) {
  const bool tile = has_tensor_cores(backend) && dtype == DType::F32;
  std::vector<int> blocks;
  for (int r : kMatmulBlocks) {
    if (!is_vector_tile(r) || tile) blocks.push_back(r);
  }
  return blocks;
}

// The autotune store spells a variant "block=R" (SIMT) or "tile=BMxBNsS" (tensor cores).
std::string variant_name(bool mma, int v) {
  if (!mma) return absl::StrCat("block=", v);
  const MmaTile& t = kMmaTiles[v - 1];
  return absl::StrCat("tile=", t.block_m(), "x", t.block_n(), "k", t.row_bytes, "Bs", t.stages,
                      t.wgmma ? "wg" : "");
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

// The cached winner for `key`, or 0.
int cached_variant(const std::string& key, bool mma) {
  std::string winner = cached_winner(key);
  return winner.empty() ? 0 : parse_variant(mma, winner);
}

// Warpgroup mma (wgmma) exists on sm_90a only (Blackwell has other instructions): f16/bf16, and
// f32 as TF32 where tensor cores run it at all (wants_mma).
bool wgmma_allowed(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend) {
  DType t = g.type(mm).dtype;
  return backend.target() == "sm_90a" && (t == DType::F16 || t == DType::BF16 || t == DType::F32);
}

int heuristic_variant(const runtime::Backend& backend, const Problem& p, bool mma, bool wgmma) {
  return mma ? mma_tile_heuristic(p.m, p.n, p.batch, wgmma) : heuristic_block(backend, p);
}

// The tensor-core tiles `mm` may run: the wgmma ones only where the device and dtype allow.
std::vector<int> usable_tiles(bool wgmma) {
  std::vector<int> tiles;
  for (int i = 1; i <= kMmaTileCount; ++i) {
    if (wgmma || !kMmaTiles[i - 1].wgmma) tiles.push_back(i);
  }
  return tiles;
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

MatmulChoice choose_matmul(const ir::Graph& g, ir::ValueId v, const runtime::Backend& backend) {
  // EMBER_MATMUL_BLOCK=1|2|4|8 (16, 17: the CUDA vector tiles) forces a block, EMBER_MMA_TILE=1..N
  // a tensor-core tile.
  const int forced_block = forced_variant("EMBER_MATMUL_BLOCK", simt_blocks(backend, DType::F32));
  // EMBER_MATMUL_STAGES=1|2 forces the SIMT template's pipeline stages.
  const int forced_stages = forced_variant("EMBER_MATMUL_STAGES", {1, 2});
  const int forced_tile = forced_variant("EMBER_MMA_TILE", usable_tiles(true));
  autotune::Mode mode = autotune::mode(!backend.runs_on_cpu());
  if (mode == autotune::Mode::on && !tunes_on(backend)) mode = autotune::Mode::cached;
  MatmulChoice c;
  c.stages =
      forced_stages > 0 ? forced_stages : (backend.kind() == runtime::DeviceKind::Cuda ? 2 : 1);
  Problem p = problem_of(g, v);
  bool mma = wants_mma(g, v, backend);
  bool wgmma = wgmma_allowed(g, v, backend);
  c.block = forced_block > 0 ? forced_block : heuristic_block(backend, p);
  int forced_variant = mma ? forced_tile : forced_block;
  if (mma && forced_variant > 0 && !wgmma) forced_variant = mma_sync_tile(forced_variant);
  int& variant = mma ? c.mma : c.block;
  if (forced_variant > 0 || mode == autotune::Mode::off) {
    variant = forced_variant > 0 ? forced_variant : heuristic_variant(backend, p, mma, wgmma);
    return c;
  }
  std::string key = matmul_tune_key(g, v, backend).to_string();
  variant = cached_variant(key, mma);
  const std::vector<int> valid = mma ? usable_tiles(wgmma) : simt_blocks(backend, g.type(v).dtype);
  if (variant > 0 && std::find(valid.begin(), valid.end(), variant) == valid.end()) {
    discard_winner(key, cached_winner(key));
    variant = 0;
  }
  if (variant > 0) return c;
  variant = heuristic_variant(backend, p, mma, wgmma);
  if (mode == autotune::Mode::on) c.tune_key = std::move(key);
  return c;
}

std::vector<MatmulChoice> choose_matmul_blocks(const ir::Graph& g,
                                               const runtime::Backend& backend) {
  std::vector<MatmulChoice> choices;
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    if (g.node(v).op != ir::OpKind::Matmul) continue;
    choices.resize(g.size());
    choices[v] = choose_matmul(g, v, backend);
  }
  return choices;
}

int tune_matmul(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend, bool mma,
                const std::function<double(int)>& time_variant) {
  std::string key = matmul_tune_key(g, mm, backend).to_string();
  std::vector<std::string> configs;
  const bool wgmma = wgmma_allowed(g, mm, backend);
  if (mma) {
    for (int i : usable_tiles(wgmma)) configs.push_back(variant_name(true, i));
  } else {
    for (int r : simt_blocks(backend, g.type(mm).dtype)) configs.push_back(variant_name(false, r));
  }
  const int heuristic = heuristic_variant(backend, problem_of(g, mm), mma, wgmma);
  std::string config =
      tune_and_record(key, mma ? "matmul_mma" : "matmul", configs, variant_name(mma, heuristic),
                      [&](const std::string& c) { return time_variant(parse_variant(mma, c)); });
  int winner = parse_variant(mma, config);
  if (winner == 0) winner = heuristic;
  return winner;
}

}  // namespace ember::jit
