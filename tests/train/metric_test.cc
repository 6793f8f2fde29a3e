// Each metric against values computed by hand (in the comments) or by plain loops.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "tests/nn/test_util.h"
#include "train/train.h"

namespace ember::train {
namespace {

using nn::testing::expect_error;

Tensor<2> logits(const std::vector<double>& v, int64_t rows, int64_t cols) {
  return Tensor<2>::from_data(TensorData(v, Shape{rows, cols}).convert(DType::F32), Device::cpu());
}
Tensor<1, Int> labels(const std::vector<int32_t>& v) {
  return Tensor<1, Int>::from_data(TensorData(v, Shape{static_cast<int64_t>(v.size())}),
                                   Device::cpu());
}
MetricInput classification(const std::vector<double>& out, int64_t cols,
                           const std::vector<int32_t>& targets) {
  const auto n = static_cast<int64_t>(targets.size());
  ClassificationOutput o{Tensor<1>::zeros(Shape{1}, Device::cpu()), logits(out, n, cols),
                         labels(targets)};
  return o.metric_input();
}
double once(Metric& m, const MetricInput& in) {
  m.update(in, {});
  return m.read().value();
}

TEST(Metric, LossWeighsStepsByBatchSize) {
  LossMetric m;
  auto step = [](double loss, int64_t n) {
    MetricInput in;
    in.loss = Tensor<1>::from_data(
        TensorData(std::vector<double>{loss}, Shape{1}).convert(DType::F32), Device::cpu());
    in.batch_size = n;
    return in;
  };
  m.update(step(1.0, 2), {});
  EXPECT_DOUBLE_EQ(m.read().value(), 1.0);
  m.update(step(2.0, 3), {});
  m.update(step(4.0, 1), {});
  EXPECT_DOUBLE_EQ(m.read().value(), (6.0 + 4.0) / 4);  // the interval: (2*3 + 4*1) / 4
  EXPECT_DOUBLE_EQ(m.epoch_value(), (2.0 + 6.0 + 4.0) / 6);
  EXPECT_FALSE(m.read().has_value());  // nothing since the last read
  m.clear();
  EXPECT_TRUE(std::isnan(m.epoch_value()));
}

TEST(Metric, Accuracy) {
  AccuracyMetric m;
  // arg-max per row: 1, 0, 1, 2 against targets 1, 1, 1, 2: 3 of 4.
  EXPECT_NEAR(
      once(m, classification({0.1, 0.9, 0, 0.8, 0.2, 0, 0.3, 0.7, 0.1, 0, 0, 5}, 3, {1, 1, 1, 2})),
      75.0, 1e-9);
  EXPECT_EQ(m.name(), "Accuracy");
  EXPECT_EQ(m.direction(), Direction::Highest);
}

TEST(Metric, TopKAccuracy) {
  TopKAccuracyMetric m(2);
  // Row 0 ranks classes 2, 0, 1 (target 1: out of the top 2); row 1 ranks 1, 2, 0 (target 2:
  // in); row 2 ranks 0, 1, 2 (target 0: in).
  EXPECT_NEAR(once(m, classification({0.5, 0.1, 0.9, 0.1, 0.9, 0.5, 0.9, 0.5, 0.1}, 3, {1, 2, 0})),
              200.0 / 3, 1e-9);
  EXPECT_EQ(m.name(), "Top-2 Accuracy");
  expect_error([] { TopKAccuracyMetric bad(0); }, {"TopKAccuracyMetric", "k"});
  TopKAccuracyMetric too_many(4);
  expect_error(
      [&] {
        too_many.update(classification({1, 2, 3}, 3, {0}), {});
      },
      {"Top-4 Accuracy", "exceeds", "3 classes"});
}

// Predictions 0, 0, 1, 1, 2 (one-hot logits) against targets 0, 1, 1, 1, 0; class 3 never
// occurs. Per class: tp (1, 2, 0), predicted (2, 2, 1), actual (2, 3, 0).
MetricInput confusion_case() {
  return classification({1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, 4,
                        {0, 1, 1, 1, 0});
}

TEST(Metric, PrecisionMacroSkipsAbsentClassesAndScoresUnsupportedAsZero) {
  // Classes 0, 1, 2 occur (class 3 does not): precision 1/2, 2/2, 0/1 -> mean 1/2.
  PrecisionMetric macro(4, ClassAverage::Macro);
  EXPECT_NEAR(once(macro, confusion_case()), 50.0, 1e-9);
  PrecisionMetric micro(4, ClassAverage::Micro);  // 3 / 5
  EXPECT_NEAR(once(micro, confusion_case()), 60.0, 1e-9);
  EXPECT_EQ(macro.name(), "Precision (macro)");
}

TEST(Metric, RecallMacroAndMicro) {
  // Recall 1/2, 2/3, and class 2 has no actual item: 0 (zero division) -> (1/2 + 2/3 + 0) / 3.
  RecallMetric macro(4, ClassAverage::Macro);
  EXPECT_NEAR(once(macro, confusion_case()), 100.0 * (0.5 + 2.0 / 3) / 3, 1e-9);
  RecallMetric micro(4, ClassAverage::Micro);
  EXPECT_NEAR(once(micro, confusion_case()), 60.0, 1e-9);
}

TEST(Metric, FBeta) {
  // F1 per class: 2tp / (2tp + fn + fp): class 0: 2/(2+1+1) = 1/2; class 1: 4/(4+1+0) = 4/5;
  // class 2: 0.
  FBetaScoreMetric f1(1.0, 4, ClassAverage::Macro);
  EXPECT_NEAR(once(f1, confusion_case()), 100.0 * (0.5 + 0.8 + 0) / 3, 1e-9);
  // F2 micro: tp 3, fn 2, fp 2: 5*3 / (5*3 + 4*2 + 2) = 15/25.
  FBetaScoreMetric f2(2.0, 4, ClassAverage::Micro);
  EXPECT_NEAR(once(f2, confusion_case()), 60.0, 1e-9);
  EXPECT_EQ(f1.name(), "F1 Score (macro)");
  expect_error([] { FBetaScoreMetric bad(0, 3, ClassAverage::Micro); }, {"beta"});
}

TEST(Metric, ConfusionCountsAddUpOverReads) {
  PrecisionMetric m(2, ClassAverage::Micro);
  once(m, classification({1, 0}, 2, {0}));                    // right
  once(m, classification({1, 0, 0, 1, 0, 1}, 2, {1, 1, 0}));  // wrong, right, wrong
  EXPECT_NEAR(m.epoch_value(), 50.0, 1e-9);
}

TEST(Metric, AurocFromRanks) {
  // Scikit-learn's example: scores 0.1, 0.4, 0.35, 0.8 for labels 0, 0, 1, 1 -> 0.75.
  EXPECT_DOUBLE_EQ(auroc({0.1, 0.4, 0.35, 0.8}, {0, 0, 1, 1}), 0.75);
  // Ties count one half: pairs (0.5 > 0.2), (0.5 = 0.5), (0.9 > 0.2), (0.9 > 0.5) -> 3.5 / 4.
  EXPECT_DOUBLE_EQ(auroc({0.2, 0.5, 0.5, 0.9}, {0, 0, 1, 1}), 0.875);
  EXPECT_DOUBLE_EQ(auroc({0.5, 0.5, 0.5, 0.5}, {0, 1, 0, 1}), 0.5);
  // One class only: undefined.
  EXPECT_TRUE(std::isnan(auroc({0.1, 0.2}, {1, 1})));
  EXPECT_TRUE(std::isnan(auroc({0.1, 0.2}, {0, 0})));
}

TEST(Metric, AurocMetricUsesClassOneProbability) {
  AurocMetric m;
  // Logit differences (class 1 - class 0) 0.1, 0.4, 0.35, 0.8: the softmax of class 1 ranks as
  // the differences do.
  EXPECT_NEAR(once(m, classification({0, 0.1, 0, 0.4, 0, 0.35, 0, 0.8}, 2, {0, 0, 1, 1})), 75.0,
              1e-6);
  // Only negatives in the next read: undefined there, the epoch still has both classes.
  EXPECT_TRUE(std::isnan(once(m, classification({0, 0.9}, 2, {0}))));
  // Epoch: scores 0.1, 0.4, 0.35, 0.8, 0.9 with labels 0, 0, 1, 1, 0: 0.35 beats 0.1 only,
  // 0.8 beats 0.1 and 0.4 -> 3 of 6 pairs.
  EXPECT_NEAR(m.epoch_value(), 50.0, 1e-6);
  expect_error([&] { m.update(classification({1, 2, 3}, 3, {0}), {}); }, {"AUROC", "3"});
}

TEST(Metric, PerplexityOfUniformLogitsIsTheClassCount) {
  PerplexityMetric m;
  EXPECT_NEAR(once(m, classification({0, 0, 0, 0, 0, 0, 0, 0}, 4, {1, 3})), 4.0, 1e-5);
  // exp(mean(-log softmax)): row [ln 3, 0] -> p(0) = 3/4; row [0, 0] -> p(1) = 1/2.
  const double want = std::exp(-(std::log(0.75) + std::log(0.5)) / 2);
  PerplexityMetric m2;
  EXPECT_NEAR(once(m2, classification({std::log(3.0), 0, 0, 0}, 2, {0, 1})), want, 1e-5);
}

TEST(Metric, SequenceOutputSkipsPadding) {
  // Two sequences of length 2; the second's last target is padding (token 0).
  auto out = Tensor<3>::from_data(
      TensorData(std::vector<double>{0, 1, 1, 0, 0, 1, 5, -5}, Shape{2, 2, 2}).convert(DType::F32),
      Device::cpu());
  auto targets = Tensor<2, Int>::from_data(
      TensorData(std::vector<int32_t>{1, 1, 1, 0}, Shape{2, 2}), Device::cpu());
  SequenceOutput s{Tensor<1>::zeros(Shape{1}, Device::cpu()), out, targets, 0};
  AccuracyMetric acc;
  // Positions: arg-max 1 (target 1), 0 (1), 1 (1), padding: 2 of 3 counted.
  EXPECT_NEAR(once(acc, s.metric_input()), 200.0 / 3, 1e-6);
  PerplexityMetric ppl;
  const double p_hi = std::exp(1.0) / (1 + std::exp(1.0));  // softmax of [0, 1] at 1
  const double want = std::exp(-(std::log(p_hi) + std::log(1 - p_hi) + std::log(p_hi)) / 3);
  EXPECT_NEAR(once(ppl, s.metric_input()), want, 1e-5);
}

TEST(Metric, MissingFieldNamesTheMetric) {
  AccuracyMetric m;
  MetricInput in;
  in.loss = Tensor<1>::zeros(Shape{1}, Device::cpu());
  expect_error([&] { m.update(in, {}); }, {"Accuracy", "output"});
}

TEST(Metric, EpochStatesRoundTrip) {
  // A checkpoint inside an epoch keeps each metric's epoch state: a fresh metric given it has the
  // same epoch value, and goes on adding to it.
  AccuracyMetric acc;
  once(acc, classification({0, 1, 1, 0, 1, 0}, 2, {1, 1, 0}));  // 2 of 3
  AccuracyMetric acc_restored;
  acc_restored.restore_epoch_state(acc.epoch_state());
  EXPECT_NEAR(acc_restored.epoch_value(), 100.0 * 2 / 3, 1e-9);
  once(acc_restored, classification({1, 0}, 2, {0}));  // 3 of 4 over the epoch
  EXPECT_NEAR(acc_restored.epoch_value(), 75.0, 1e-9);
  EXPECT_THROW(acc_restored.restore_epoch_state({1, 2, 3}), Error);

  AurocMetric auroc;
  once(auroc, classification({0, 0.1, 0, 0.4, 0, 0.35, 0, 0.8}, 2, {0, 0, 1, 1}));
  AurocMetric auroc_restored;
  auroc_restored.restore_epoch_state(auroc.epoch_state());
  EXPECT_NEAR(auroc_restored.epoch_value(), 75.0, 1e-6);
  EXPECT_THROW(auroc_restored.restore_epoch_state({0.5}), Error);

  LearningRateMetric lr;
  MetricMetadata meta;
  meta.lr = 0.25;
  lr.update({}, meta);
  lr.read();
  LearningRateMetric lr_restored;
  lr_restored.restore_epoch_state(lr.epoch_state());
  meta.lr = 0.75;
  lr_restored.update({}, meta);
  lr_restored.read();
  EXPECT_DOUBLE_EQ(lr_restored.epoch_value(), 0.5);
  EXPECT_THROW(lr_restored.restore_epoch_state({}), Error);
}

TEST(Metric, LearningRateAndIterationSpeed) {
  LearningRateMetric lr;
  MetricMetadata meta;
  meta.lr = 0.25;
  lr.update({}, meta);
  meta.lr = 0.5;
  lr.update({}, meta);
  EXPECT_DOUBLE_EQ(lr.read().value(), 0.5);  // the last step's
  IterationSpeedMetric speed;
  for (int i = 0; i < 3; ++i) speed.update({}, meta);
  const double v = speed.read().value();
  EXPECT_GT(v, 0);
  EXPECT_FALSE(speed.read().has_value());
}

TEST(Metric, ProcFilesParsed) {
  const auto dir = std::filesystem::temp_directory_path() / "ember_train_proc";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "stat") << "cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 1 2 3 4\n";
    std::ofstream(dir / "meminfo") << "MemTotal:       2097152 kB\nMemFree:  100 kB\n"
                                      "MemAvailable:    524288 kB\n";
  }
  auto [busy, total] = read_cpu_jiffies((dir / "stat").string());
  EXPECT_EQ(total, 100u + 5 + 50 + 800 + 20 + 3 + 2 + 0);
  EXPECT_EQ(busy, total - 800 - 20);
  EXPECT_DOUBLE_EQ(read_used_memory_gib((dir / "meminfo").string()), 1.5);  // (2 - 0.5) GiB
  expect_error([&] { read_used_memory_gib((dir / "stat").string()); }, {"MemTotal"});
  // The live files give sane values.
  CpuMemoryMetric mem;
  mem.update({}, {});
  EXPECT_GT(mem.read().value(), 0);
}

TEST(Metric, GpuMetricsNeedNvml) {
  if (gpu_metrics_available()) {
    GpuMemoryMetric mem(0);
    mem.update({}, {});
    EXPECT_GE(mem.read().value(), 0);
  } else {
    expect_error([] { GpuMemoryMetric m(0); }, {"GPU Memory", "NVML"});
    expect_error([] { GpuUtilizationMetric m(0); }, {"GPU Utilization", "NVML"});
  }
}

TEST(Metric, Formatting) {
  AccuracyMetric acc;
  EXPECT_EQ(format_value(acc, 87.456), "87.46 %");
  LossMetric loss;
  EXPECT_EQ(format_value(loss, 0.5), "0.5000");
  EXPECT_EQ(format_value(loss, std::nan("")), "n/a");
}

}  // namespace
}  // namespace ember::train
