#include "train/checkpoint.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "frontend/random_state.h"
#include "ir/error.h"
#include "train/early_stopping.h"

namespace ember::train {

namespace {

// A number, or "nan", "inf", "-inf" as to_json writes them; throws nlohmann's type error
// otherwise (reported as not a training state).
double non_finite_or_number(const nlohmann::json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return v.get<double>();
}

}  // namespace

std::string TrainingState::to_json() const {
  nlohmann::json j;
  j["epoch"] = epoch;
  j["iteration"] = iteration;
  j["optimizer_steps"] = optimizer_steps;
  j["global_step"] = global_step;
  j["lr"] = lr;
  if (!scheduler.empty()) j["scheduler"] = nlohmann::json::parse(scheduler);
  if (!plateau.empty()) j["plateau"] = nlohmann::json::parse(plateau);
  j["rng_seed"] = rng_seed;
  j["rng_offset"] = rng_offset;
  auto values = nlohmann::json::array();
  for (const auto& [metric, split, e, value] : epoch_values) {
    values.push_back({metric, split_name(split), e, value});
  }
  j["epoch_values"] = values;
  if (!metric_states.empty()) {
    // JSON has no NaN or infinity (a loss that diverged): they are written as strings.
    auto states = nlohmann::json::object();
    for (const auto& [metric, state] : metric_states) {
      auto values = nlohmann::json::array();
      for (double v : state) {
        if (std::isfinite(v)) {
          values.push_back(v);
        } else {
          values.push_back(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        }
      }
      states[metric] = values;
    }
    j["metric_states"] = states;
  }
  return j.dump(2);
}

TrainingState TrainingState::from_json(const std::string& text, const std::string& source) {
  try {
    const auto j = nlohmann::json::parse(text);
    TrainingState s;
    s.epoch = j.at("epoch").get<int64_t>();
    s.iteration = j.at("iteration").get<int64_t>();
    s.optimizer_steps = j.at("optimizer_steps").get<int64_t>();
    s.global_step = j.at("global_step").get<int64_t>();
    s.lr = j.value("lr", 0.0);
    if (j.contains("scheduler")) s.scheduler = j.at("scheduler").dump();
    if (j.contains("plateau")) s.plateau = j.at("plateau").dump();
    s.rng_seed = j.at("rng_seed").get<uint64_t>();
    s.rng_offset = j.at("rng_offset").get<uint64_t>();
    for (const auto& v : j.at("epoch_values")) {
      const Split split = v.at(1).get<std::string>() == "train" ? Split::Train : Split::Valid;
      const double value = v.at(3).is_null() ? std::nan("") : v.at(3).get<double>();
      s.epoch_values.emplace_back(v.at(0).get<std::string>(), split, v.at(2).get<int64_t>(), value);
    }
    if (j.contains("metric_states")) {
      for (const auto& [metric, state] : j.at("metric_states").items()) {
        std::vector<double> values;
        for (const auto& v : state) values.push_back(non_finite_or_number(v));
        s.metric_states.emplace_back(metric, std::move(values));
      }
    }
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw Error("TrainingState: " + source + " is not a training state: " + e.what());
  }
}

std::pair<uint64_t, uint64_t> random_state() { return detail::take_random_offset(0); }

void set_random_state(uint64_t seed_value, uint64_t offset) {
  seed(seed_value);
  detail::take_random_offset(static_cast<int64_t>(offset));
}

std::vector<int64_t> CheckpointPolicy::to_delete(const std::set<int64_t>& saved,
                                                 const MetricHistory& history) const {
  std::set<int64_t> keep;
  int64_t kept = 0;
  for (auto it = saved.rbegin(); it != saved.rend() && kept < keep_last; ++it, ++kept) {
    keep.insert(*it);
  }
  if (best_metric) {
    if (const MetricSeries* s = history.find(*best_metric)) {
      keep.insert(best_epoch(history, *best_metric, best_split, s->direction));
    }
  }
  std::vector<int64_t> out;
  for (int64_t e : saved) {
    if (!keep.count(e)) out.push_back(e);
  }
  return out;
}

}  // namespace ember::train
