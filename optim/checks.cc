#include "optim/checks.h"

#include <cmath>
#include <string>

#include "ir/error.h"

namespace ember::optim::detail {

void check_non_negative(const char* config, const char* field, double value) {
  if (!(value >= 0) || !std::isfinite(value)) {
    throw Error(std::string(config) + ": " + field + " must be finite and >= 0, got " +
                std::to_string(value));
  }
}

void check_non_negative(const char* config, const char* field, const std::optional<double>& value) {
  if (value) check_non_negative(config, field, *value);
}

}  // namespace ember::optim::detail
