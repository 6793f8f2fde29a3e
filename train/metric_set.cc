#include "train/metric_set.h"

namespace ember::train {

void MetricSet::update(const MetricInput& input, const MetricMetadata& meta) {
  for (auto& m : metrics_) m->update(input, meta);
}

void MetricSet::read(int64_t epoch, int64_t iteration, double x, MetricHistory& history,
                     const std::vector<MetricLogger*>& loggers) {
  for (auto& m : metrics_) {
    std::optional<double> value = m->read();
    if (!value) continue;
    history.add_point(split_, *m, x, *value);
    for (auto* logger : loggers) logger->log(split_, epoch, iteration, x, m->name(), *value);
  }
}

void MetricSet::end_epoch(int64_t epoch, MetricHistory& history,
                          const std::vector<MetricLogger*>& loggers) {
  for (auto& m : metrics_) {
    const double value = m->epoch_value();
    history.add_epoch(split_, *m, epoch, value);
    for (auto* logger : loggers) logger->log_epoch(split_, epoch, m->name(), value);
    m->clear();
  }
}

}  // namespace ember::train
