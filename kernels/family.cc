#include "kernels/family.h"

#include "absl/strings/str_cat.h"

namespace ember::jit {

std::string Family::describe(Variant v) const { return absl::StrCat(v); }

float Family::tuning_tolerance(const ir::Graph& g, const KernelPlan& kp) const {
  const DType t = g.type(kp.outputs[0]).dtype;
  return t == DType::F16 || t == DType::BF16 ? 1e-2f : 1e-3f;
}

}  // namespace ember::jit
