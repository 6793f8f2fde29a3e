#pragma once
// Precision, recall and the F-beta score in percent (Burn's PrecisionMetric, RecallMetric,
// FBetaScoreMetric) for single-label classification: the prediction is the arg-max of the
// output. The device sums per-class true positives, predictions and targets; a read turns them
// into the score, micro (over all items) or macro (the mean over classes that occur among the
// predictions or the targets; a class predicted never, or never present, scores 0 where its
// denominator is 0, as scikit-learn's zero_division=0).
#include "train/metric/sum_metric.h"

namespace ember::train {

enum class ClassAverage { Micro, Macro };

class ConfusionMetric : public SumMetric {
 public:
  // Throws ember::Error for num_classes < 2.
  ConfusionMetric(int64_t num_classes, ClassAverage average);
  Direction direction() const override { return Direction::Highest; }
  std::string unit() const override { return "%"; }
  int precision() const override { return 2; }

 protected:
  Tensor<1> statistics(const MetricInput& input) const override;
  double evaluate(const std::vector<double>& sums) const override;
  // The score from true positives, predicted and actual counts (of one class or all).
  virtual double score(double tp, double predicted, double actual) const = 0;
  std::string suffix() const;

 private:
  int64_t classes_;
  ClassAverage average_;
};

class PrecisionMetric : public ConfusionMetric {
 public:
  using ConfusionMetric::ConfusionMetric;
  std::string name() const override { return "Precision" + suffix(); }

 protected:
  double score(double tp, double predicted, double actual) const override;
};

class RecallMetric : public ConfusionMetric {
 public:
  using ConfusionMetric::ConfusionMetric;
  std::string name() const override { return "Recall" + suffix(); }

 protected:
  double score(double tp, double predicted, double actual) const override;
};

class FBetaScoreMetric : public ConfusionMetric {
 public:
  // Throws ember::Error for beta <= 0.
  FBetaScoreMetric(double beta, int64_t num_classes, ClassAverage average);
  std::string name() const override;

 protected:
  double score(double tp, double predicted, double actual) const override;

 private:
  double beta_;
};

}  // namespace ember::train
