#pragma once
// EMBER_AUTOTUNE=off|cached|on. off: heuristic defaults only. cached: winners from the cache,
// defaults for keys not in it. on: keys not in the cache are tuned on the device, then cached.
// Unset, GPUs tune and the CPU path (the CPU backend, lavapipe) uses cached-or-default, so CI
// stays fast.
namespace ember::autotune {

enum class Mode { off, cached, on };

// The mode for a device (`tunable_device`: a GPU worth tuning for); an unknown value reads as
// the default. Read at each call, so tests may change the variable.
Mode mode(bool tunable_device);
const char* mode_name(Mode m);

}  // namespace ember::autotune
