#include "optim/scheduler/composed.h"

#include "ir/error.h"

namespace ember::optim {

ComposedLrScheduler::ComposedLrScheduler(std::vector<std::unique_ptr<LrScheduler>> schedulers,
                                         Reduction reduction)
    : schedulers_(std::move(schedulers)), reduction_(reduction) {
  if (schedulers_.empty()) throw Error("ComposedLrScheduler: no scheduler to compose");
  for (const auto& s : schedulers_) {
    if (!s) throw Error("ComposedLrScheduler: a null scheduler");
  }
}

ComposedLrScheduler::ComposedLrScheduler(const ComposedLrScheduler& o) : reduction_(o.reduction_) {
  for (const auto& s : o.schedulers_) schedulers_.push_back(s->clone());
}

ComposedLrScheduler& ComposedLrScheduler::operator=(const ComposedLrScheduler& o) {
  if (this == &o) return *this;
  schedulers_.clear();
  for (const auto& s : o.schedulers_) schedulers_.push_back(s->clone());
  reduction_ = o.reduction_;
  return *this;
}

double ComposedLrScheduler::step() {
  // Every scheduler advances, whatever the reduction, so each stays on its own schedule.
  double acc = reduction_ == Reduction::prod ? 1 : 0;
  for (auto& s : schedulers_) {
    const double lr = s->step();
    acc = reduction_ == Reduction::prod ? acc * lr : acc + lr;
  }
  if (reduction_ == Reduction::avg) acc /= static_cast<double>(schedulers_.size());
  return acc;
}

nlohmann::json ComposedLrScheduler::state() const {
  nlohmann::json inner = nlohmann::json::array();
  for (const auto& s : schedulers_) inner.push_back(s->state());
  return {{"schedulers", inner}};
}

void ComposedLrScheduler::load_state(const nlohmann::json& state) {
  if (!state.is_object() || !state.contains("schedulers") || !state["schedulers"].is_array() ||
      state["schedulers"].size() != schedulers_.size()) {
    throw Error("ComposedLrScheduler: state does not hold " + std::to_string(schedulers_.size()) +
                " schedulers: " + state.dump());
  }
  // Loaded into copies first, so a bad inner state leaves every scheduler as it was.
  std::vector<std::unique_ptr<LrScheduler>> loaded;
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    loaded.push_back(schedulers_[i]->clone());
    loaded.back()->load_state(state["schedulers"][i]);
  }
  schedulers_ = std::move(loaded);
}

}  // namespace ember::optim
