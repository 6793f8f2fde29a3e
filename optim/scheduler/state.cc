#include "optim/scheduler/state.h"

#include <cmath>
#include <limits>

#include "ir/error.h"

namespace ember::optim::detail {

int64_t state_count(const char* scheduler, const nlohmann::json& state, const char* key) {
  if (!state.is_object() || !state.contains(key) || !state[key].is_number_integer() ||
      state[key].get<int64_t>() < 0) {
    throw Error(std::string(scheduler) + ": state needs '" + key + "', a count >= 0; got " +
                state.dump());
  }
  return state[key].get<int64_t>();
}

nlohmann::json state_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double state_double(const char* scheduler, const nlohmann::json& state, const char* key) {
  if (state.is_object() && state.contains(key)) {
    const auto& v = state[key];
    if (v.is_number()) return v.get<double>();
    if (v == "inf") return std::numeric_limits<double>::infinity();
    if (v == "-inf") return -std::numeric_limits<double>::infinity();
    if (v == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  throw Error(std::string(scheduler) + ": state needs '" + key + "', a number; got " +
              state.dump());
}

}  // namespace ember::optim::detail
