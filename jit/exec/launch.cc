#include "jit/exec/launch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/error.h"
#include "jit/dump.h"
#include "jit/stats.h"
#include "runtime/collectives.h"
#include "runtime/host_convert.h"

namespace ember::jit {
namespace {

// `details`: whether value and limit belong to this site (only the first failure records them).
std::string error_message(const ir::Graph& g, const ErrorSite& site, bool details, int64_t value,
                          uint32_t limit) {
  const ir::Node& n = g.node(site.node);
  if (site.kind == ErrorKind::DivisionByZero) {
    return labelled_error(n, absl::StrCat(ir::binary_name(n.get<ir::BinaryAttrs>().fn),
                                          ": integer division by zero"));
  }
  const char* op = n.op == ir::OpKind::Gather ? "gather" : "scatter";
  ir::ValueId target = n.inputs[0];
  std::string what = details ? absl::StrCat("index ", value) : "an index";
  std::string size = details ? absl::StrCat(" of size ", limit) : "";
  return labelled_error(n, absl::StrCat(op, ": ", what, " out of range for dim ", site.axis, size,
                                        " (tensor ", g.type(target).to_string(), ")"));
}

// Whether `v` is computed from `node` (or is it).
bool depends_on(const ir::Graph& g, ir::ValueId v, ir::ValueId node) {
  if (v < node) return false;
  std::vector<ir::ValueId> stack{v};
  std::vector<char> seen(g.size(), 0);
  while (!stack.empty()) {
    ir::ValueId u = stack.back();
    stack.pop_back();
    if (u == node) return true;
    if (u < node || seen[u]) continue;
    seen[u] = 1;
    for (ir::ValueId in : g.node(u).inputs) stack.push_back(in);
  }
  return false;
}

uint32_t groups_for(const LaunchSpec& l, uint32_t max_groups) {
  uint64_t wg = l.workgroup_size;
  uint64_t g = l.per_row ? l.work_items : (l.work_items + wg - 1) / wg;
  return static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>(g, 1), max_groups));
}

// Whether environment variable `name` is set to `value`.
bool env_is(const char* name, std::string_view value) {
  const char* env = std::getenv(name);
  return env != nullptr && std::string_view(env) == value;
}

bool log_kernels() {
  static const bool on = log_enabled("kernels");
  return on;
}

bool log_flush_phases() {
  static const bool on = log_enabled("flush");
  return on;
}

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// EMBER_INPLACE=0 turns in-place buffer reuse off (every output gets a buffer of its own): a
// debugging switch for suspected aliasing problems.
bool in_place_enabled() {
  static const bool off = env_is("EMBER_INPLACE", "0");
  return !off;
}

// EMBER_DEBUG_NAN=1: after every launch, the kernel's float outputs are read back and the
// first kernel that makes a NaN from inputs without one is reported on stderr (an anomaly
// detector for fused code; slow: one sync per kernel).
bool check_nans() {
  static const bool on = env_is("EMBER_DEBUG_NAN", "1");
  return on;
}

bool has_nan(runtime::Backend& backend, const ir::Graph& g, ir::ValueId v,
             const runtime::Array& a) {
  DType t = g.type(v).dtype;
  if (t != DType::F32 && t != DType::F64 && t != DType::F16 && t != DType::BF16) return false;
  backend.sync();
  int64_t n = a.type.shape.numel();
  std::vector<uint8_t> raw(static_cast<size_t>(n) * dtype_size(a.type.dtype));
  backend.download(a, raw.data());
  std::vector<float> x(static_cast<size_t>(n));
  runtime::convert_elements(a.type.dtype, raw.data(), DType::F32, x.data(), n);
  return std::any_of(x.begin(), x.end(), [](float f) { return std::isnan(f); });
}

void report_new_nans(const ir::Graph& g, const KernelPlan& kp, int k, const LaunchSpec& l,
                     const std::vector<std::optional<runtime::Array>>& arrays,
                     runtime::Backend& backend) {
  for (size_t i = 0; i < l.bindings.size(); ++i) {
    if (!l.writes[i] && has_nan(backend, g, l.bindings[i], *arrays[l.bindings[i]])) return;
  }
  for (ir::ValueId o : kp.outputs) {
    if (!has_nan(backend, g, o, *arrays[o])) continue;
    std::fprintf(stderr, "ember: kernel %d (%s) wrote a NaN into %%%d from inputs without one\n%s",
                 k, l.name.c_str(), o, ir::print_node(g, o).c_str());
    return;
  }
}

// Device timestamps on while launches are logged, whatever the user chose.
class TimingOn {
 public:
  explicit TimingOn(runtime::Backend& b) : backend_(b), was_(b.set_timing(true)) {}
  ~TimingOn() { backend_.set_timing(was_); }
  TimingOn(const TimingOn&) = delete;
  TimingOn& operator=(const TimingOn&) = delete;

 private:
  runtime::Backend& backend_;
  bool was_;
};

// EMBER_LOG=kernels: runs each launch on its own (a debugging mode) to time it with device
// timestamps, then prints name, fused op count, time and effective bandwidth (bytes bound).
void log_launch(const ir::Graph& g, const LaunchSpec& spec, const runtime::Launch& l,
                runtime::Backend& backend) {
  backend.take_device_time_ns();
  backend.sync();
  double ns = backend.take_device_time_ns();
  double bytes = 0;
  for (ir::ValueId v : spec.bindings) {
    bytes += static_cast<double>(g.type(v).shape.numel() * dtype_size(g.type(v).dtype));
  }
  std::string time = ns >= 0 ? absl::StrFormat("%.3f ms, %.1f GB/s", ns / 1e6, bytes / ns)
                             : std::string("no device timer");
  // The first value it writes names the kernel's size (a product's output, a reduction's).
  std::string writes;
  for (size_t i = 0; i < spec.bindings.size() && writes.empty(); ++i) {
    if (spec.writes[i]) writes = g.type(spec.bindings[i]).to_string();
  }
  std::fprintf(stderr, "ember kernel %s: %d ops fused, %u workgroups, %s, writes %s\n",
               spec.name.c_str(), spec.fused_nodes, l.groups[0], time.c_str(), writes.c_str());
}

// Buffers for kernel k's outputs: an intermediate read only in place that dies here lends its
// buffer to an output of the same size, else a fresh one.
void assign_outputs(const ir::Graph& g, const PlanLaunch& p, int k,
                    const std::vector<int>& last_read, const std::vector<char>& is_output,
                    std::vector<std::optional<runtime::Array>>& arrays, runtime::Backend& backend) {
  std::vector<ir::ValueId> donors;
  if (in_place_enabled()) {
    for (ir::ValueId v : p.launches[k].in_place_candidates) {
      if (last_read[v] == k && !is_output[v] && g.node(v).op != ir::OpKind::Input)
        donors.push_back(v);
    }
  }
  for (ir::ValueId o : p.plan.kernels[k].outputs) {
    size_t bytes = static_cast<size_t>(g.type(o).shape.numel()) * dtype_size(g.type(o).dtype);
    auto donor = std::find_if(donors.begin(), donors.end(),
                              [&](ir::ValueId v) { return arrays[v]->buffer->bytes() == bytes; });
    if (donor != donors.end()) {
      arrays[o] = runtime::Array::contiguous(arrays[*donor]->buffer, g.type(o));
      donors.erase(donor);
    } else {
      arrays[o] = backend.allocate(g.type(o));
    }
  }
}

// The array of operand v of a host kernel: stored, or a view of a stored value that the
// backend's view primitives make (no copy).
runtime::Array host_operand(const ir::Graph& g, ir::ValueId v,
                            const std::vector<std::optional<runtime::Array>>& arrays,
                            runtime::Backend& backend) {
  if (arrays[v] && arrays[v]->buffer) return *arrays[v];
  const ir::Node& n = g.node(v);
  runtime::Array base = host_operand(g, n.inputs[0], arrays, backend);
  return backend.run_primitive(n, std::span<const runtime::Array>(&base, 1));
}

// Runs a host kernel (the CPU target's matmul, convolution, sort, scatter) as the backend's
// primitive. A failure (an index out of range) is returned; the output then gets a buffer of
// its own, which the outputs that depend on it never show.
std::string run_host_kernel(const ir::Graph& g, ir::ValueId anchor,
                            std::vector<std::optional<runtime::Array>>& arrays,
                            runtime::Backend& backend) {
  const ir::Node& n = g.node(anchor);
  try {
    std::vector<runtime::Array> ins;
    for (ir::ValueId in : n.inputs) ins.push_back(host_operand(g, in, arrays, backend));
    arrays[anchor] = backend.run_primitive(n, ins);
    return "";
  } catch (const Error& e) {
    arrays[anchor] = backend.allocate(g.type(anchor));
    return labelled_error(n, e.what());
  }
}

// A collective (kernels/collective/family.h) as the backend's external work. Its result takes
// the operand's buffer when the operand dies here and the sizes match (NCCL works in place).
runtime::SequencedLaunch collective_launch(const ir::Graph& g, ir::ValueId anchor, int k,
                                           const std::vector<int>& last_read,
                                           const std::vector<char>& is_output,
                                           std::vector<std::optional<runtime::Array>>& arrays,
                                           runtime::Backend& backend) {
  const ir::Node& n = g.node(anchor);
  const ir::ValueId in = n.inputs[0];
  const bool in_place = in_place_enabled() && last_read[in] == k && !is_output[in] &&
                        g.node(in).op != ir::OpKind::Input &&
                        g.type(in).shape == g.type(anchor).shape;
  arrays[anchor] = in_place ? runtime::Array::contiguous(arrays[in]->buffer, g.type(anchor))
                            : backend.allocate(g.type(anchor));
  runtime::SequencedLaunch s;
  s.launch.buffers = {*arrays[in], *arrays[anchor]};
  s.launch.writes = {false, true};
  s.external = runtime::collective_work(n.get<ir::CollectiveAttrs>(), *arrays[in], *arrays[anchor]);
  return s;
}

// The error each value failed with (empty: none), from the kernels' check words and the host
// kernels' failures.
std::vector<std::string> read_failures(const ir::Graph& g, const PlanLaunch& p,
                                       const std::vector<runtime::Array>& errors,
                                       const std::vector<std::string>& host_failed,
                                       runtime::Backend& backend) {
  std::vector<std::string> failed(g.size());
  for (size_t k = 0; k < p.launches.size(); ++k) {
    const LaunchSpec& l = p.launches[k];
    // An input that failed upstream fails every output of this kernel.
    std::string upstream;
    for (size_t i = 0; i < l.bindings.size() && upstream.empty(); ++i) {
      if (!l.writes[i] && !failed[l.bindings[i]].empty()) upstream = failed[l.bindings[i]];
    }
    std::vector<uint32_t> words;
    if (l.uses_errors) {
      words.resize(static_cast<size_t>(errors[k].type.shape.numel()));
      backend.download(errors[k], words.data());
    }
    if (upstream.empty()) upstream = host_failed[k];
    for (ir::ValueId o : p.plan.kernels[k].outputs) {
      if (!upstream.empty()) {
        failed[o] = upstream;
        continue;
      }
      // A failed check fails only the outputs computed from the op that failed it.
      for (size_t s = 0; s < l.error_sites.size() && !words.empty(); ++s) {
        bool fired = (words[4 + s / 32] >> (s % 32)) & 1u;
        if (!fired || !depends_on(g, o, l.error_sites[s].node)) continue;
        bool first = words[0] == s + 1;
        int64_t value = static_cast<int64_t>(uint64_t{words[3]} << 32 | words[1]);
        failed[o] = error_message(g, l.error_sites[s], first, value, words[2]);
        break;
      }
    }
  }
  return failed;
}

}  // namespace

std::vector<Outcome> launch_plan(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                 const PlanLaunch& p,
                                 std::vector<std::optional<runtime::Array>>& arrays,
                                 runtime::Backend& backend) {
  const auto t_start = std::chrono::steady_clock::now();
  const int kernels = static_cast<int>(p.launches.size());
  std::vector<char> is_output(g.size(), 0);
  for (ir::ValueId o : outputs) is_output[o] = 1;
  std::vector<int> last_read(g.size(), -1);
  for (int k = 0; k < kernels; ++k) {
    for (ir::ValueId b : p.launches[k].bindings) last_read[b] = k;
  }
  // The CPU runs each launch as it comes (host kernels run between them).
  const bool sequence = p.sequence_key != 0 && !log_kernels() && !check_nans() &&
                        backend.kind() != runtime::DeviceKind::Cpu;
  std::optional<TimingOn> log_timing;  // logged launches are timed
  if (log_kernels()) log_timing.emplace(backend);
  std::vector<runtime::SequencedLaunch> pending;
  std::vector<runtime::Array> errors(static_cast<size_t>(kernels));
  std::vector<std::string> host_failed(static_cast<size_t>(kernels));
  bool checks = false;
  double assign_ms = 0, check_upload_ms = 0;  // parts of the prepare phase, for EMBER_LOG=flush
  for (int k = 0; k < kernels; ++k) {
    const LaunchSpec& spec = p.launches[k];
    if (spec.host_anchor >= 0) {
      host_failed[k] = run_host_kernel(g, spec.host_anchor, arrays, backend);
      counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    if (spec.external_anchor >= 0) {
      runtime::SequencedLaunch s =
          collective_launch(g, spec.external_anchor, k, last_read, is_output, arrays, backend);
      if (sequence) {
        pending.push_back(std::move(s));
      } else {
        s.external->enqueue(nullptr, false);
      }
      counters().collectives.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    // Timed only while logged (a clock read per kernel otherwise).
    const auto t_assign = log_flush_phases() ? std::chrono::steady_clock::now()
                                             : std::chrono::steady_clock::time_point{};
    assign_outputs(g, p, k, last_read, is_output, arrays, backend);
    if (log_flush_phases()) assign_ms += ms_between(t_assign, std::chrono::steady_clock::now());
    runtime::Launch l;
    for (ir::ValueId b : spec.bindings) l.buffers.push_back(*arrays[b]);
    l.writes = spec.writes;
    l.params = spec.params;
    l.tiled_views = spec.tiled_views;
    l.elements = spec.elements;
    if (spec.uses_errors) {
      int64_t words = 4 + (static_cast<int64_t>(spec.error_sites.size()) + 31) / 32;
      std::vector<uint32_t> zeros(static_cast<size_t>(words), 0);
      const auto t_upload = log_flush_phases() ? std::chrono::steady_clock::now()
                                               : std::chrono::steady_clock::time_point{};
      errors[k] = backend.upload({DType::I32, Shape{words}}, zeros.data());
      if (log_flush_phases())
        check_upload_ms += ms_between(t_upload, std::chrono::steady_clock::now());
      l.buffers.push_back(errors[k]);
      l.writes.push_back(true);
      checks = true;
    }
    l.groups[0] = groups_for(spec, backend.max_workgroups());
    if (spec.work_items > 0) {
      if (sequence) {
        pending.push_back({p.kernels[k].get(), std::move(l)});
      } else {
        backend.launch(*p.kernels[k], l);
      }
      counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
      if (spec.mma) counters().mma_launches.fetch_add(1, std::memory_order_relaxed);
      if (log_kernels()) log_launch(g, spec, l, backend);
      if (check_nans()) report_new_nans(g, p.plan.kernels[k], k, spec, arrays, backend);
    }
    counters().ops_fused.fetch_add(std::max(0, spec.fused_nodes - 1), std::memory_order_relaxed);
  }
  const auto t_prepared = std::chrono::steady_clock::now();
  if (!pending.empty() && backend.launch_sequence(p.sequence_key, pending)) {
    counters().graph_launches.fetch_add(1, std::memory_order_relaxed);
    for (const runtime::SequencedLaunch& s : pending) {
      if (s.external) counters().graph_collectives.fetch_add(1, std::memory_order_relaxed);
    }
  }
  // Kernel-side checks must be read back now. Otherwise an ordered-stream backend (CUDA) keeps
  // running asynchronously and synchronises only when data is read; Vulkan submits here.
  const auto t_submitted = std::chrono::steady_clock::now();
  if (checks || !backend.ordered_stream()) backend.sync();
  std::vector<std::string> failed = read_failures(g, p, errors, host_failed, backend);
  if (log_flush_phases()) {
    // Where a flush's host time goes: buffers and arguments of every launch, handing them to
    // the device (a CUDA graph's patching included), then the wait for kernel-side checks.
    std::fprintf(stderr,
                 "ember launch: %d kernels: prepared in %.3f ms (buffers %.3f ms, check words "
                 "%.3f ms), submitted in %.3f ms, checks read after %.3f ms\n",
                 kernels, ms_between(t_start, t_prepared), assign_ms, check_upload_ms,
                 ms_between(t_prepared, t_submitted),
                 ms_between(t_submitted, std::chrono::steady_clock::now()));
  }
  std::vector<Outcome> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    ir::ValueId o = outputs[i];
    if (!failed[o].empty()) {
      out[i].error = failed[o];
    } else {
      out[i].array = arrays[o];
    }
  }
  return out;
}

}  // namespace ember::jit
