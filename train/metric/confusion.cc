#include "train/metric/confusion.h"

#include <cstdio>
#include <limits>

namespace ember::train {

ConfusionMetric::ConfusionMetric(int64_t num_classes, ClassAverage average)
    : classes_(num_classes), average_(average) {
  if (num_classes < 2) {
    throw Error("ConfusionMetric: num_classes must be >= 2, got " + std::to_string(num_classes));
  }
}

std::string ConfusionMetric::suffix() const {
  return average_ == ClassAverage::Micro ? " (micro)" : " (macro)";
}

// [true positives, predictions, targets], each per class: [3 * classes].
Tensor<1> ConfusionMetric::statistics(const MetricInput& input) const {
  const auto& output = require(input.output, *this, "output");
  const auto& targets = require(input.targets, *this, "targets");
  if (output.shape()[1] != classes_) {
    throw Error(name() + ": the output has " + std::to_string(output.shape()[1]) +
                " classes, the metric " + std::to_string(classes_));
  }
  auto predicted = output.argmax(1).squeeze<1>(1).one_hot<2>(classes_).float_();  // [n, C]
  auto actual = targets.one_hot<2>(classes_).float_();
  if (input.weights) {
    auto w = input.weights->unsqueeze_dim<2>(1);
    predicted = predicted * w;
    actual = actual * w;
  }
  auto tp = (predicted * actual).sum_dim(0);
  auto stats = Tensor<2>::cat({tp, predicted.sum_dim(0), actual.sum_dim(0)}, 0);  // [3, C]
  return stats.reshape<1>(Shape{3 * classes_});
}

double ConfusionMetric::evaluate(const std::vector<double>& sums) const {
  const double* tp = sums.data();
  const double* predicted = tp + classes_;
  const double* actual = predicted + classes_;
  if (average_ == ClassAverage::Micro) {
    double t = 0, p = 0, a = 0;
    for (int64_t c = 0; c < classes_; ++c) t += tp[c], p += predicted[c], a += actual[c];
    if (p == 0 && a == 0) return std::numeric_limits<double>::quiet_NaN();
    return 100.0 * score(t, p, a);
  }
  double total = 0;
  int64_t counted = 0;
  for (int64_t c = 0; c < classes_; ++c) {
    if (predicted[c] == 0 && actual[c] == 0) continue;  // a class absent from both
    total += score(tp[c], predicted[c], actual[c]);
    ++counted;
  }
  if (counted == 0) return std::numeric_limits<double>::quiet_NaN();
  return 100.0 * total / static_cast<double>(counted);
}

double PrecisionMetric::score(double tp, double predicted, double) const {
  return predicted > 0 ? tp / predicted : 0.0;
}

double RecallMetric::score(double tp, double, double actual) const {
  return actual > 0 ? tp / actual : 0.0;
}

FBetaScoreMetric::FBetaScoreMetric(double beta, int64_t num_classes, ClassAverage average)
    : ConfusionMetric(num_classes, average), beta_(beta) {
  if (!(beta > 0)) throw Error("FBetaScoreMetric: beta must be > 0, got " + std::to_string(beta));
}

std::string FBetaScoreMetric::name() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "F%g Score", beta_);
  return buf + suffix();
}

// (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp), which is the weighted harmonic mean of precision
// and recall without dividing by a zero precision or recall first.
double FBetaScoreMetric::score(double tp, double predicted, double actual) const {
  const double b2 = beta_ * beta_;
  const double fp = predicted - tp, fn = actual - tp;
  const double denominator = (1 + b2) * tp + b2 * fn + fp;
  return denominator > 0 ? (1 + b2) * tp / denominator : 0.0;
}

}  // namespace ember::train
