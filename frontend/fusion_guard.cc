#include "frontend/fusion_guard.h"

#include "jit/plan/fusion_switch.h"

namespace ember {

FusionGuard::FusionGuard(bool enabled) { jit::set_fusion_override(enabled ? 1 : 0); }
FusionGuard::~FusionGuard() { jit::set_fusion_override(-1); }

}  // namespace ember
