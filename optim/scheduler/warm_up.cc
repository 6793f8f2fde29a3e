#include "optim/scheduler/warm_up.h"

#include "ir/error.h"
#include "optim/scheduler/check.h"

namespace ember::optim {

WarmUpLrScheduler::WarmUpLrScheduler(std::unique_ptr<LrScheduler> inner, int64_t warmup_iters)
    : inner_(std::move(inner)), warmup_iters_(warmup_iters) {
  if (!inner_) throw Error("WarmUpLrScheduler: no scheduler to wrap");
  detail::check_iters("WarmUpLrScheduler", "warmup_iters", warmup_iters);
}

WarmUpLrScheduler::WarmUpLrScheduler(const WarmUpLrScheduler& o)
    : inner_(o.inner_->clone()), warmup_iters_(o.warmup_iters_), iter_(o.iter_) {}

WarmUpLrScheduler& WarmUpLrScheduler::operator=(const WarmUpLrScheduler& o) {
  if (this != &o) {
    inner_ = o.inner_->clone();
    warmup_iters_ = o.warmup_iters_;
    iter_ = o.iter_;
  }
  return *this;
}

double WarmUpLrScheduler::step() {
  const double lr = inner_->step();
  if (iter_ >= warmup_iters_) return lr;
  ++iter_;
  return lr * static_cast<double>(iter_) / static_cast<double>(warmup_iters_);
}

nlohmann::json WarmUpLrScheduler::state() const {
  return {{"iter", iter_}, {"inner", inner_->state()}};
}

void WarmUpLrScheduler::load_state(const nlohmann::json& state) {
  const int64_t iter = detail::state_count("WarmUpLrScheduler", state, "iter");
  if (!state.contains("inner")) throw Error("WarmUpLrScheduler: state lacks 'inner'");
  inner_->load_state(state["inner"]);
  iter_ = iter;
}

}  // namespace ember::optim
