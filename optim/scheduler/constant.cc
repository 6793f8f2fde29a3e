#include "optim/scheduler/constant.h"

#include "ir/error.h"
#include "optim/scheduler/check.h"

namespace ember::optim {

ConstantLr::ConstantLr(double lr) : lr_(lr) { detail::check_lr("ConstantLr", "lr", lr); }

// A constant rate has no position.
nlohmann::json ConstantLr::state() const { return nlohmann::json::object(); }

void ConstantLr::load_state(const nlohmann::json& state) {
  if (!state.is_object()) throw Error("ConstantLr: state is not a JSON object: " + state.dump());
}

}  // namespace ember::optim
