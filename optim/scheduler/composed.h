#pragma once
// Several schedulers stepped together, their rates combined by product, sum or average (Burn's
// ComposedLrScheduler): an exponential decay times a cosine, for example.
#include <memory>
#include <vector>

#include "optim/scheduler/lr_scheduler.h"

namespace ember::optim {

class ComposedLrScheduler : public LrScheduler {
 public:
  enum class Reduction { prod, sum, avg };

  // Throws ember::Error for an empty list or a null scheduler.
  ComposedLrScheduler(std::vector<std::unique_ptr<LrScheduler>> schedulers,
                      Reduction reduction = Reduction::prod);
  ComposedLrScheduler(const ComposedLrScheduler& o);
  ComposedLrScheduler& operator=(const ComposedLrScheduler& o);
  double step() override;
  std::unique_ptr<LrScheduler> clone() const override {
    return std::make_unique<ComposedLrScheduler>(*this);
  }
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  std::vector<std::unique_ptr<LrScheduler>> schedulers_;
  Reduction reduction_;
};

}  // namespace ember::optim
