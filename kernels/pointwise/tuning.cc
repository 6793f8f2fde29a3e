#include "kernels/pointwise/tuning.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "autotune/mode.h"
#include "kernels/tuning.h"

namespace ember::jit {
namespace {

bool allowed(int v, const auto& values) {
  return std::find(std::begin(values), std::end(values), v) != std::end(values);
}

bool valid(const PointwiseConfig& c) {
  if (c.threads == 1 && c.unroll == 1 && c.vector == 1) return true;  // the CPU target's
  return allowed(c.threads, kPointwiseThreads) && allowed(c.unroll, kPointwiseUnrolls) &&
         (c.vector == 1 || c.vector == 4);
}

}  // namespace

std::string config_string(const PointwiseConfig& c) {
  return absl::StrCat("threads=", c.threads, ",unroll=", c.unroll, ",vector=", c.vector);
}

int variant_of(const std::string& s) {
  PointwiseConfig c;
  int fields = 0;
  for (absl::string_view part : absl::StrSplit(s, ',')) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(part, '=');
    int v = 0;
    if (!absl::SimpleAtoi(kv.second, &v)) return 0;
    int* field = kv.first == "threads"  ? &c.threads
                 : kv.first == "unroll" ? &c.unroll
                 : kv.first == "vector" ? &c.vector
                                        : nullptr;
    if (field == nullptr) return 0;
    *field = v;
    ++fields;
  }
  return fields == 3 && valid(c) ? pointwise_variant(c) : 0;
}

namespace {

std::vector<int> all_variants(bool vector4) {
  std::vector<int> out;
  for (int t : kPointwiseThreads) {
    for (int u : kPointwiseUnrolls) {
      out.push_back(pointwise_variant({t, u, 1}));
      if (vector4) out.push_back(pointwise_variant({t, u, 4}));
    }
  }
  return out;
}

}  // namespace

int pointwise_variant(const PointwiseConfig& c) {
  return c.threads | c.unroll << 12 | c.vector << 20;
}

PointwiseConfig pointwise_config(int variant) {
  PointwiseConfig c{variant & 0xfff, (variant >> 12) & 0xff, (variant >> 20) & 0xff};
  return valid(c) ? c : PointwiseConfig{};
}

bool vectorizable(const ir::Graph& g, const KernelPlan& kp) {
  if (kp.shape.numel() % 4 != 0 || kp.shape.numel() < 1024) return false;
  for (ir::ValueId o : kp.outputs) {
    if (dtype_size(g.type(o).dtype) != 4) return false;
  }
  return true;
}

autotune::TuneKey pointwise_tune_key(const ir::Graph& g, const KernelPlan& kp,
                                     const runtime::Backend& backend) {
  std::string dtypes;
  for (ir::ValueId o : kp.outputs) {
    absl::StrAppend(&dtypes, dtypes.empty() ? "" : "+", dtype_name(g.type(o).dtype));
  }
  return {"pointwise",
          backend.fingerprint(),
          {kp.shape.numel()},
          {dtypes, vectorizable(g, kp) ? "v4" : "v1", absl::StrCat(kp.outputs.size(), "out")}};
}

int choose_pointwise(const ir::Graph& g, const KernelPlan& kp, const runtime::Backend& backend,
                     std::string* tune_key) {
  tune_key->clear();
  // The CPU target: one thread per workgroup over a contiguous range, scalar code (the
  // compiler vectorises the loop).
  if (backend.kind() == runtime::DeviceKind::Cpu) return pointwise_variant({1, 1, 1});
  const bool vector4 = vectorizable(g, kp);
  const int heuristic = pointwise_variant({256, 4, vector4 ? 4 : 1});
  if (const char* env = std::getenv("EMBER_POINTWISE")) {
    if (int forced = variant_of(env); forced > 0) return forced;
  }
  autotune::Mode mode = autotune::mode(!backend.runs_on_cpu());
  if (mode == autotune::Mode::on && !tunes_on(backend)) mode = autotune::Mode::cached;
  if (mode == autotune::Mode::off || kp.shape.numel() < kMinTunedElements) return heuristic;
  std::string key = pointwise_tune_key(g, kp, backend).to_string();
  if (int stored = variant_of(cached_winner(key)); stored > 0) {
    const std::vector<int> valid = all_variants(vector4);
    if (std::find(valid.begin(), valid.end(), stored) != valid.end()) return stored;
    discard_winner(key, cached_winner(key));
  }
  if (mode == autotune::Mode::on) *tune_key = std::move(key);
  return heuristic;
}

int tune_pointwise(const ir::Graph& g, const KernelPlan& kp, const runtime::Backend& backend,
                   const std::function<double(int)>& time_variant) {
  const bool vector4 = vectorizable(g, kp);
  const int heuristic = pointwise_variant({256, 4, vector4 ? 4 : 1});
  std::vector<std::string> configs;
  for (int v : all_variants(vector4)) configs.push_back(config_string(pointwise_config(v)));
  std::string winner =
      tune_and_record(pointwise_tune_key(g, kp, backend).to_string(), "pointwise", configs,
                      config_string(pointwise_config(heuristic)),
                      [&](const std::string& c) { return time_variant(variant_of(c)); });
  int v = variant_of(winner);
  return v > 0 ? v : heuristic;
}

}  // namespace ember::jit
