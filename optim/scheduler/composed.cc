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

}  // namespace ember::optim
