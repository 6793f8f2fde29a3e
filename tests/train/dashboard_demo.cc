// The synthetic task trained slowly (20 ms a step) with the default renderer, for the tmux test
// of the dashboard: dashboard_demo RESULT_FILE writes "interrupted=I epochs=N checkpoints=E..."
// to RESULT_FILE when fit() returns.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "optim/optim.h"
#include "tests/train/synthetic.h"
#include "train/train.h"

using namespace ember;
using namespace ember::train;

namespace {
// Slows every step down so that a person (or tmux) can watch.
class Pace : public LearningRateMetric {
 public:
  std::string name() const override { return "Learning Rate"; }
  void update(const MetricInput& in, const MetricMetadata& meta) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    LearningRateMetric::update(in, meta);
  }
};
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: dashboard_demo RESULT_FILE\n");
    return 2;
  }
  using Optim = optim::Optimizer<optim::AdamRule>;
  auto checkpoints = std::make_shared<MemoryCheckpointer<testing::Classifier, Optim>>();
  auto learner = LearnerBuilder<testing::Classifier, optim::AdamRule>("")
                     .metric_train_numeric(LossMetric())
                     .metric_train_numeric(AccuracyMetric())
                     .metric_train_numeric(Pace())
                     .metric_valid_numeric(LossMetric())
                     .metric_valid_numeric(AccuracyMetric())
                     .num_epochs(1000)
                     .log_interval(2)
                     .with_checkpointer(checkpoints)
                     .stop_on_ctrl_c()
                     .build(testing::make_classifier(0.1), optim::AdamConfig().init(), 0.02);
  auto train = std::make_shared<testing::VectorLoader>(testing::make_data(120, 1), 8, 3);
  auto valid = std::make_shared<testing::VectorLoader>(testing::make_data(30, 2), 8, std::nullopt);
  learner.fit(train, valid);
  std::ofstream out(argv[1]);
  out << "interrupted=" << learner.result().interrupted
      << " epochs=" << learner.result().epochs_completed << " checkpoints=";
  for (int64_t e : checkpoints->epochs()) out << e << ",";
  out << "\n";
  return 0;
}
