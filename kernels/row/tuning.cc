#include "kernels/row/tuning.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "autotune/mode.h"
#include "kernels/tuning.h"

namespace ember::jit {
namespace {

// "wg=256": a workgroup per row; "rows=128": a thread per row, in workgroups of 128.
std::string config_of(int workgroup, bool thread_rows = false) {
  return absl::StrCat(thread_rows ? "rows=" : "wg=", workgroup);
}

// The configuration a tuning record names; workgroup 0 for one this version does not run.
RowChoice choice_of(const std::string& config) {
  RowChoice c;
  if (config == config_of(kThreadRowsWorkgroup, true)) {
    c.workgroup = kThreadRowsWorkgroup;
    c.thread_rows = true;
    return c;
  }
  int wg = 0;
  if (config.rfind("wg=", 0) != 0 || !absl::SimpleAtoi(config.substr(3), &wg)) return c;
  for (int allowed : kRowWorkgroups) {
    if (wg == allowed) c.workgroup = wg;
  }
  return c;
}

std::vector<ir::ValueId> reductions_of(const ir::Graph& g) {
  std::vector<ir::ValueId> out;
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    if (g.node(v).op == ir::OpKind::Reduce) out.push_back(v);
  }
  return out;
}

// row_tune_key, given the graph's reductions (a flush lists them once for all its keys).
autotune::TuneKey row_key(const ir::Graph& g, ir::ValueId reduce,
                          const std::vector<ir::ValueId>& reductions,
                          const runtime::Backend& backend) {
  const ir::Node& n = g.node(reduce);
  const TensorType& in = g.type(n.inputs[0]);
  int axis = n.get<ir::ReduceAttrs>().axis;
  int64_t len = in.shape[axis];
  int64_t rows = len == 0 ? 0 : in.shape.numel() / len;
  // The reductions over rows of this shape, in order (softmax: max+sum, layer norm: sum+sum):
  // a row kernel holds them all, and the best workgroup differs between such programs.
  std::string fns;
  for (ir::ValueId v : reductions) {
    const ir::Node& m = g.node(v);
    if (m.get<ir::ReduceAttrs>().axis != axis || g.type(m.inputs[0]).shape != in.shape) continue;
    absl::StrAppend(&fns, fns.empty() ? "" : "+", ir::reduce_name(m.get<ir::ReduceAttrs>().fn));
  }
  return {"row",
          backend.fingerprint(),
          {rows, len},
          {dtype_name(in.dtype), axis == in.shape.rank() - 1 ? "last" : "strided", fns}};
}

}  // namespace

bool thread_rows_allowed() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_THREAD_ROWS");
    return env == nullptr || std::string(env) != "0";
  }();
  return on;
}

int row_workgroup_heuristic(const ir::Graph& g, ir::ValueId reduce) {
  const ir::Node& n = g.node(reduce);
  const Shape& in = g.type(n.inputs[0]).shape;
  int axis = n.get<ir::ReduceAttrs>().axis;
  int64_t len = in[axis];
  if (len < 1024) return kRowWorkgroupDefault;
  // Strided rows (column sums of a backward pass): 128 threads (run 45: 128 everywhere took
  // Vulkan's transformer_block from 60.7 to 42.7 ms; CUDA's tuning picked 64-256 for them).
  if (axis != in.rank() - 1) return 128;
  int wg = 128;
  while (wg < 512 && static_cast<int64_t>(wg) * 8 < len) wg *= 2;
  return wg;
}

bool row_thread_rows_heuristic(const ir::Graph& g, ir::ValueId reduce) {
  if (!thread_rows_allowed()) return false;
  const ir::Node& n = g.node(reduce);
  const Shape& in = g.type(n.inputs[0]).shape;
  const int axis = n.get<ir::ReduceAttrs>().axis;
  const int64_t len = in[axis];
  const int64_t rows = len == 0 ? 0 : in.numel() / len;
  if (rows < kThreadRowsMinRows) return false;
  int64_t inner = 1;
  for (int d = axis + 1; d < in.rank(); ++d) inner *= in[d];
  // Strided rows: a warp's threads then read 32 consecutive elements at each step (measured on
  // an H100: the bias gradients of transformer_block, rows of 8 with 4M rows, took 2.5 ms each
  // as a workgroup per row).
  return len <= kThreadRowsMaxShort ||
         (inner >= 32 && len <= kThreadRowsMaxStrided && rows >= kThreadRowsMinLongRows);
}

autotune::TuneKey row_tune_key(const ir::Graph& g, ir::ValueId reduce,
                               const runtime::Backend& backend) {
  return row_key(g, reduce, reductions_of(g), backend);
}

RowChoice choose_row(const ir::Graph& g, ir::ValueId v, const runtime::Backend& backend) {
  const int forced =
      forced_variant("EMBER_ROW_WORKGROUP",
                     std::vector<int>(std::begin(kRowWorkgroups), std::end(kRowWorkgroups)));
  autotune::Mode mode = autotune::mode(!backend.runs_on_cpu());
  if (mode == autotune::Mode::on && !tunes_on(backend)) mode = autotune::Mode::cached;
  RowChoice heuristic;
  heuristic.thread_rows = row_thread_rows_heuristic(g, v);
  heuristic.workgroup =
      heuristic.thread_rows ? kThreadRowsWorkgroup : row_workgroup_heuristic(g, v);
  if (forced > 0) {
    RowChoice c;
    c.workgroup = forced;
    return c;
  }
  if (mode == autotune::Mode::off) return heuristic;
  std::string key = row_key(g, v, reductions_of(g), backend).to_string();
  const std::string cached = cached_winner(key);
  RowChoice c = choice_of(cached);
  if (c.workgroup > 0) return c;
  if (!cached.empty()) discard_winner(key, cached);
  c = heuristic;
  if (mode == autotune::Mode::on) c.tune_key = std::move(key);
  return c;
}

std::vector<RowChoice> choose_row_workgroups(const ir::Graph& g, const runtime::Backend& backend) {
  const std::vector<ir::ValueId> reductions = reductions_of(g);
  if (reductions.empty()) return {};
  std::vector<RowChoice> choices(g.size());
  for (ir::ValueId v : reductions) choices[v] = choose_row(g, v, backend);
  return choices;
}

RowChoice tune_row(const ir::Graph& g, ir::ValueId reduce, const runtime::Backend& backend,
                   const std::function<double(int, bool)>& time_variant) {
  std::vector<std::string> configs;
  for (int wg : kRowWorkgroups) configs.push_back(config_of(wg));
  if (thread_rows_allowed()) configs.push_back(config_of(kThreadRowsWorkgroup, true));
  const bool rows = row_thread_rows_heuristic(g, reduce);
  const std::string heuristic =
      rows ? config_of(kThreadRowsWorkgroup, true) : config_of(row_workgroup_heuristic(g, reduce));
  std::string winner = tune_and_record(row_tune_key(g, reduce, backend).to_string(), "row", configs,
                                       heuristic, [&](const std::string& c) {
                                         RowChoice rc = choice_of(c);
                                         return time_variant(rc.workgroup, rc.thread_rows);
                                       });
  RowChoice c = choice_of(winner);
  return c.workgroup > 0 ? c : choice_of(heuristic);
}

}  // namespace ember::jit
