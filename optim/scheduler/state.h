#pragma once
// Helpers for schedulers' recorded positions (state()/load_state()): checked reads of a state's
// fields, and doubles that JSON cannot hold (an infinite best metric) as strings.
#include <cstdint>
#include <nlohmann/json.hpp>

namespace ember::optim {

namespace detail {
// state[key] as a count >= 0; throws ember::Error naming `scheduler` when absent or not one.
int64_t state_count(const char* scheduler, const nlohmann::json& state, const char* key);
// A double as JSON, with the strings "inf", "-inf" and "nan" for what JSON cannot hold.
nlohmann::json state_double(double v);
double state_double(const char* scheduler, const nlohmann::json& state, const char* key);
}  // namespace detail

}  // namespace ember::optim
