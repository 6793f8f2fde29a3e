#pragma once
// Argument checks shared by the schedulers; each throws ember::Error naming the scheduler.
#include <cstdint>

namespace ember::optim::detail {

// Throws unless lr is finite and >= 0.
void check_lr(const char* scheduler, const char* field, double lr);
// Throws unless n > 0.
void check_iters(const char* scheduler, const char* field, int64_t n);

}  // namespace ember::optim::detail
