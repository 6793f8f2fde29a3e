#include "kernels/row/tuning.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "autotune/mode.h"
#include "kernels/tuning.h"

namespace ember::jit {
namespace {

std::string config_of(int workgroup) { return absl::StrCat("wg=", workgroup); }

int workgroup_of(const std::string& config) {
  int wg = 0;
  if (config.rfind("wg=", 0) != 0 || !absl::SimpleAtoi(config.substr(3), &wg)) return 0;
  for (int allowed : kRowWorkgroups) {
    if (wg == allowed) return wg;
  }
  return 0;
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
  RowChoice c;
  if (forced > 0 || mode == autotune::Mode::off) {
    c.workgroup = forced > 0 ? forced : row_workgroup_heuristic(g, v);
    return c;
  }
  std::string key = row_key(g, v, reductions_of(g), backend).to_string();
  c.workgroup = workgroup_of(cached_winner(key));
  if (c.workgroup > 0 && std::find(std::begin(kRowWorkgroups), std::end(kRowWorkgroups),
                                   c.workgroup) == std::end(kRowWorkgroups)) {
    discard_winner(key, cached_winner(key));
    c.workgroup = 0;
  }
  if (c.workgroup > 0) return c;
  c.workgroup = row_workgroup_heuristic(g, v);
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

int tune_row(const ir::Graph& g, ir::ValueId reduce, const runtime::Backend& backend,
             const std::function<double(int)>& time_variant) {
  std::vector<std::string> configs;
  for (int wg : kRowWorkgroups) configs.push_back(config_of(wg));
  const int heuristic = row_workgroup_heuristic(g, reduce);
  std::string winner = tune_and_record(
      row_tune_key(g, reduce, backend).to_string(), "row", configs, config_of(heuristic),
      [&](const std::string& c) { return time_variant(workgroup_of(c)); });
  int wg = workgroup_of(winner);
  return wg > 0 ? wg : heuristic;
}

}  // namespace ember::jit
