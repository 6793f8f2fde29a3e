#include "kernels/conv/tuning.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "autotune/mode.h"
#include "kernels/conv/tensor_core.h"
#include "kernels/tuning.h"

namespace ember::jit {
namespace {

constexpr int kBlocks[] = {1, 2, 4, 8};
constexpr int64_t kTile = 16;  // the SIMT GEMM's threads per side

std::string config_of(ConvBlock b) {
  return b.mma > 0 ? absl::StrCat("mma=", b.mma) : absl::StrCat("block=", b.rm, "x", b.rn);
}

// The block a configuration names; rm 0 for one this version does not run.
ConvBlock block_of(const std::string& config) {
  ConvBlock none{0, 0};
  int tile = 0;
  if (config.rfind("mma=", 0) == 0) {
    // The exact f32 tiles are never tuned: a stored one is not this version's.
    if (!absl::SimpleAtoi(config.substr(4), &tile) || tile < 1 || tile >= kConvSimtTile)
      return none;
    return {1, 1, tile};
  }
  if (config.rfind("block=", 0) != 0) return none;
  std::vector<std::string> parts = absl::StrSplit(config.substr(6), 'x');
  ConvBlock b;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &b.rm) ||
      !absl::SimpleAtoi(parts[1], &b.rn)) {
    return none;
  }
  auto allowed = [](int r) {
    for (int k : kBlocks)
      if (r == k) return true;
    return false;
  };
  return allowed(b.rm) && allowed(b.rn) ? b : none;
}

// Blocks whose tile is not mostly empty for this problem (the smallest always); the
// tensor-core tiles whose columns are not mostly empty.
std::vector<std::string> candidates(const ConvShape& s, ConvBlock heuristic) {
  std::vector<std::string> out;
  for (int t = 1; s.mma && t <= kConvMmaTileCount; ++t) {
    if (t >= kConvSimtTile) continue;  // exact f32's, never tensor-core candidates
    if (kConvMmaTiles[t - 1].block_n() / 2 < s.N || t == heuristic.mma)
      out.push_back(config_of({1, 1, t}));
  }
  for (int rm : kBlocks) {
    if (s.mma) break;
    if (rm > 1 && kTile * rm / 2 >= s.M) continue;
    for (int rn : kBlocks) {
      if (rn > 1 && kTile * rn / 2 >= s.N) continue;
      out.push_back(config_of({rm, rn}));
    }
  }
  if (std::find(out.begin(), out.end(), config_of(heuristic)) == out.end())
    out.push_back(config_of(heuristic));
  return out;
}

// EMBER_CONV_TUNE=0 keeps the heuristic's block (stored winners ignored, nothing tuned): the
// baseline of an A/B measurement of the tuned blocks.
bool conv_tuning_allowed() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_CONV_TUNE");
    return env == nullptr || std::string(env) != "0";
  }();
  return on;
}

}  // namespace

ConvShape conv_gemm(const ir::Graph& g, ir::ValueId y) {
  const ir::ValueId x = g.node(y).inputs[0], w = g.node(y).inputs[1];
  const Shape &xs = g.type(x).shape, &ws = g.type(w).shape, &ys = g.type(y).shape;
  const int64_t groups = g.node(y).get<ir::ConvAttrs>().groups;
  int64_t out_pixels = 1, taps = 1;
  for (int d = 2; d < xs.rank(); ++d) out_pixels *= ys[d], taps *= ws[d];
  return {groups, xs[0] * out_pixels, ws[0] / groups, ws[1] * taps, g.type(y).dtype};
}

autotune::TuneKey conv_tune_key(const ConvShape& s, const runtime::Backend& backend) {
  return {
      "conv",
      backend.fingerprint(),
      {s.M, s.N, s.K},
      {dtype_name(s.dtype), absl::StrCat("g", autotune::anchor(s.groups)), s.mma ? "mma" : "simt"}};
}

ConvChoice choose_conv_block(const ConvShape& s, ConvBlock heuristic,
                             const runtime::Backend& backend) {
  autotune::Mode mode = autotune::mode(!backend.runs_on_cpu());
  if (mode == autotune::Mode::on && !tunes_on(backend)) mode = autotune::Mode::cached;
  ConvChoice c{heuristic, {}};
  if (mode == autotune::Mode::off || !conv_tuning_allowed()) return c;
  std::string key = conv_tune_key(s, backend).to_string();
  const std::string cached = cached_winner(key);
  if (!cached.empty()) {
    ConvBlock b = block_of(cached);
    if (b.rm > 0 && (b.mma > 0) == s.mma) return {b, {}};
    discard_winner(key, cached);
  }
  if (mode == autotune::Mode::on) c.tune_key = std::move(key);
  return c;
}

ConvBlock tune_conv_block(const ConvShape& s, ConvBlock heuristic, const runtime::Backend& backend,
                          const std::function<double(ConvBlock)>& time_block) {
  std::string winner = tune_and_record(
      conv_tune_key(s, backend).to_string(), "conv", candidates(s, heuristic), config_of(heuristic),
      [&](const std::string& c) { return time_block(block_of(c)); });
  ConvBlock b = block_of(winner);
  return b.rm > 0 && (b.mma > 0) == s.mma ? b : heuristic;
}

}  // namespace ember::jit
