#pragma once
// EMBER_FUSION=0 (or a FusionGuard) makes every primitive its own kernel: the unfused baseline.
namespace ember::jit {

bool fusion_enabled();
// Thread-safe process-wide override; -1 restores the environment's choice.
void set_fusion_override(int enabled);

}  // namespace ember::jit
