#pragma once
// Lowers the learning rate when a metric stops improving (PyTorch's ReduceLROnPlateau; Burn has
// none). Each step(metric) (a validation loss, say) counts the steps since the best value; after
// more than `patience` of them without an improvement by more than `threshold` (relative), the
// rate is multiplied by `factor` (not below min_lr) and the next `cooldown` steps count no
// stagnation. Not an LrScheduler: it needs the metric.
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

namespace ember::optim {

class ReduceLrOnPlateau {
 public:
  enum class Mode { min, max };  // whether a lower or a higher metric is better

  struct Options {
    Mode mode = Mode::min;
    double factor = 0.1;
    int64_t patience = 10;
    double threshold = 1e-4;  // relative: better than best * (1 -+ threshold)
    int64_t cooldown = 0;
    double min_lr = 0;
  };

  // PyTorch's defaults. Throws ember::Error for a negative rate, factor outside [0, 1), a
  // negative patience, threshold or cooldown, or min_lr above the initial rate.
  explicit ReduceLrOnPlateau(double initial_lr) : ReduceLrOnPlateau(initial_lr, Options()) {}
  ReduceLrOnPlateau(double initial_lr, Options options);

  // Records this step's metric and returns the rate for the next step.
  double step(double metric);
  double lr() const { return lr_; }
  // Where it is (rate, best metric, counters) as JSON, for checkpoints; load_state() restores it
  // into one made with the same options (throws ember::Error for a state of another shape).
  nlohmann::json state() const;
  void load_state(const nlohmann::json& state);

 private:
  bool improves(double metric) const;

  double lr_;
  Options o_;
  double best_;
  int64_t bad_steps_ = 0;
  int64_t cooldown_left_ = 0;
};

}  // namespace ember::optim
