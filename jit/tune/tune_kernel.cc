#include "jit/tune/tune_kernel.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "jit/compile/compile.h"
#include "jit/lower/lower.h"
#include "kernels/family.h"
#include "kernels/tuning.h"
#include "runtime/host_convert.h"

namespace ember::jit {
namespace {

// A candidate is timed over a burst of about this many ms (3 to 32 launches).
constexpr double kBurstMs = 2.0;

// Device timestamps on for a measurement, whatever the user chose (set_device_timing).
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

std::vector<float> download_as_f32(runtime::Backend& backend, const runtime::Array& a) {
  int64_t n = a.type.shape.numel();
  std::vector<uint8_t> raw(static_cast<size_t>(n) * dtype_size(a.type.dtype));
  backend.download(a, raw.data());
  std::vector<float> out(static_cast<size_t>(n));
  runtime::convert_elements(a.type.dtype, raw.data(), DType::F32, out.data(), n);
  return out;
}

// Candidates reorder the K summation differently: equal up to rounding.
bool close_enough(const std::vector<float>& got, const std::vector<float>& want, float tolerance) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    if (!(std::abs(got[i] - want[i]) <= tolerance * (1.0f + std::abs(want[i])))) return false;
  }
  return true;
}

// A buffer of `type` holding reproducible values: floats in [-1, 1], integers 1 to 4 (no zero
// divisors), booleans true.
runtime::Array scratch(runtime::Backend& backend, const TensorType& type) {
  const int64_t n = type.shape.numel();
  std::vector<float> values(static_cast<size_t>(n));
  uint32_t state = 0x9e3779b9u;
  const bool floating = is_floating(compute_type(type.dtype));
  for (float& v : values) {
    state = state * 1664525u + 1013904223u;
    v = floating ? static_cast<float>(state >> 8) / 8388608.0f - 1.0f
                 : static_cast<float>(1 + (state >> 30));
  }
  std::vector<uint8_t> raw(static_cast<size_t>(n) * dtype_size(type.dtype));
  runtime::convert_elements(DType::F32, values.data(), type.dtype, raw.data(), n);
  return backend.upload(type, raw.data());
}

uint32_t groups_for(const LaunchSpec& l, uint32_t max_groups) {
  uint64_t wg = l.workgroup_size;
  uint64_t g = l.per_row ? l.work_items : (l.work_items + wg - 1) / wg;
  return static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>(g, 1), max_groups));
}

}  // namespace

std::vector<KernelDesc> tuning_candidates(const ir::Graph& g, const Plan& plan, int k,
                                          const Emitter::LayoutFn& layout,
                                          runtime::Backend& backend) {
  const KernelPlan& kp = plan.kernels[k];
  if (lower_kernel(g, plan, k, layout).launch.uses_errors) return {};
  std::vector<KernelDesc> out;
  std::set<Variant> seen;
  auto collect = [&](Variant variant) -> double {
    if (seen.insert(variant).second) {
      Plan trial = plan;
      trial.kernels[k].variant = variant;
      out.push_back(lower_kernel(g, trial, k, layout).desc);
    }
    return 1.0;
  };
  CandidateScan scan;
  const VariantContext context{g, plan, layout, backend};
  kp.family->tune(context, kp, collect);
  return out;
}

Variant tune_kernel(const ir::Graph& g, const Plan& plan, int k, const Emitter::LayoutFn& layout,
                    runtime::Backend& backend, bool* tunable) {
  const KernelPlan& kp = plan.kernels[k];
  *tunable = !lower_kernel(g, plan, k, layout).launch.uses_errors;
  if (!*tunable) return kp.variant;
  std::map<ir::ValueId, runtime::Array> buffers;  // flush inputs as given, scratch for the rest
  // (Values only written need no contents.)
  auto buffer = [&](ir::ValueId v, bool written) -> const runtime::Array& {
    auto it = buffers.find(v);
    if (it != buffers.end()) return it->second;
    runtime::Array a = g.node(v).op == ir::OpKind::Input ? layout(v)
                       : written                         ? backend.allocate(g.type(v))
                                                         : scratch(backend, g.type(v));
    return buffers.emplace(v, std::move(a)).first->second;
  };
  const ir::ValueId out = kp.outputs[0];
  std::vector<float> reference;
  std::set<Variant> checked;
  const float tolerance = kp.family->tuning_tolerance(g, kp);
  auto time_variant = [&](Variant variant) -> double {
    Plan trial = plan;
    trial.kernels[k].variant = variant;
    LoweredKernel lk = lower_kernel(g, trial, k, layout);
    std::shared_ptr<runtime::Kernel> kernel = get_kernel(lk.desc, backend);
    runtime::Launch l;
    for (size_t i = 0; i < lk.launch.bindings.size(); ++i)
      l.buffers.push_back(buffer(lk.launch.bindings[i], lk.launch.writes[i]));
    l.writes = lk.launch.writes;
    l.params = lk.launch.params;
    l.tiled_views = lk.launch.tiled_views;
    l.groups[0] = groups_for(lk.launch, backend.max_workgroups());
    backend.sync();
    backend.take_device_time_ns();
    backend.launch(*kernel, l);
    backend.sync();
    double ms = backend.take_device_time_ns() / 1e6;
    if (ms >= 0) {
      // A kernel timed alone reads the device's wake-up and submission as much as the kernel
      // (Vulkan on an H100: 3-5x its steady time, for long matmuls too, which then won or lost
      // at random): the first launch only warms up, a burst back to back is timed.
      int reps = static_cast<int>(std::clamp(kBurstMs / std::max(ms, 1e-3), 3.0, 32.0));
      for (int i = 0; i < reps; ++i) backend.launch(*kernel, l);
      backend.sync();
      ms = backend.take_device_time_ns() / 1e6 / reps;
    }
    if (checked.insert(variant).second) {
      std::vector<float> got = download_as_f32(backend, buffer(out, true));
      if (reference.empty()) {
        reference = std::move(got);
      } else if (!close_enough(got, reference, tolerance)) {
        return -1;
      }
    }
    return ms;
  };
  TimingOn timing(backend);
  // The current variant's result is the check's reference.
  time_variant(kp.variant);
  const VariantContext context{g, plan, layout, backend};
  return kp.family->tune(context, kp, time_variant);
}

}  // namespace ember::jit
