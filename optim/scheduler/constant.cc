#include "optim/scheduler/constant.h"

#include "optim/scheduler/check.h"

namespace ember::optim {

ConstantLr::ConstantLr(double lr) : lr_(lr) { detail::check_lr("ConstantLr", "lr", lr); }

}  // namespace ember::optim
