#pragma once
// Config checks shared by the optimizers; each throws ember::Error naming the config and field.
#include <optional>

namespace ember::optim::detail {

// Throws unless value is finite and >= 0 (a decay, a momentum).
void check_non_negative(const char* config, const char* field, double value);
// The same for an optional field, when set.
void check_non_negative(const char* config, const char* field, const std::optional<double>& value);

}  // namespace ember::optim::detail
