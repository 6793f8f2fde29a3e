#include "optim/scheduler/check.h"

#include <cmath>
#include <string>

#include "ir/error.h"

namespace ember::optim::detail {

void check_lr(const char* scheduler, const char* field, double lr) {
  if (!(lr >= 0) || !std::isfinite(lr)) {
    throw Error(std::string(scheduler) + ": " + field + " must be finite and >= 0, got " +
                std::to_string(lr));
  }
}

void check_iters(const char* scheduler, const char* field, int64_t n) {
  if (n <= 0) {
    throw Error(std::string(scheduler) + ": " + field + " must be positive, got " +
                std::to_string(n));
  }
}

}  // namespace ember::optim::detail
