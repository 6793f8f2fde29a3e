// Checkpoints as files: a resume from files continues the uninterrupted run bit for bit, the
// policy deletes the files of dropped epochs, and a damaged checkpoint is reported, not loaded.
#include "train/file_checkpointer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "optim/optim.h"
#include "tests/nn/test_util.h"
#include "tests/train/synthetic.h"
#include "train/train.h"

namespace ember::train {
namespace {

using nn::testing::expect_error;
using testing::Classifier;
using Optim = optim::Optimizer<optim::AdamRule>;
using Files = FileCheckpointer<Classifier, optim::AdamRule>;

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("ember_checkpoint_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<float> fit(std::shared_ptr<Files> files, std::optional<int64_t> resume, int64_t epochs,
                       CheckpointPolicy policy = CheckpointPolicy{10}) {
  LearnerBuilder<Classifier, optim::AdamRule> builder("");
  builder.metric_valid_numeric(AccuracyMetric())
      .num_epochs(epochs)
      .with_checkpointer(files)
      .checkpointing(policy)
      .renderer(std::make_unique<PlainRenderer>());
  if (resume) builder.checkpoint(*resume);
  optim::ExponentialLrScheduler lr(0.05, 0.9);
  auto learner = builder.build(testing::make_classifier(0.3), optim::AdamConfig().init(), lr);
  auto train = std::make_shared<testing::VectorLoader>(testing::make_data(30, 1), 8, 11);
  auto valid = std::make_shared<testing::VectorLoader>(testing::make_data(15, 2), 8, std::nullopt);
  return testing::parameters(learner.fit(train, valid));
}

TEST(FileCheckpointer, ResumeFromFilesIsBitIdentical) {
  const auto dir = fresh_dir("resume");
  auto files = std::make_shared<Files>(dir.string());
  const auto full = fit(files, std::nullopt, 3);
  for (int64_t e = 1; e <= 3; ++e) {
    EXPECT_TRUE(std::filesystem::exists(files->model_path(e)));
    EXPECT_TRUE(std::filesystem::exists(files->optim_path(e)));
    EXPECT_TRUE(std::filesystem::exists(files->state_path(e)));
  }
  EXPECT_EQ(fit(files, 1, 3), full);
  EXPECT_EQ(fit(files, 2, 3), full);
}

TEST(FileCheckpointer, PolicyDeletesDroppedEpochs) {
  const auto dir = fresh_dir("policy");
  auto files = std::make_shared<Files>(dir.string());
  fit(files, std::nullopt, 3, CheckpointPolicy{1});
  EXPECT_FALSE(std::filesystem::exists(files->model_path(1)));
  EXPECT_FALSE(std::filesystem::exists(files->state_path(2)));
  EXPECT_TRUE(std::filesystem::exists(files->model_path(3)));
}

TEST(FileCheckpointer, CorruptCheckpointIsReportedNotLoaded) {
  const auto dir = fresh_dir("corrupt");
  auto files = std::make_shared<Files>(dir.string());
  fit(files, std::nullopt, 1);
  const std::string model = files->model_path(1);
  std::string bytes;
  {
    std::ifstream in(model, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bytes[bytes.size() / 2] ^= 0x01;  // one bit of the model's file
  std::ofstream(model, std::ios::binary | std::ios::trunc) << bytes;

  const Classifier fresh = testing::make_classifier(0.3);
  Optim optimizer = optim::AdamConfig().init();
  TrainingState state;
  state.epoch = 99;
  expect_error([&] { files->restore(1, fresh, optimizer, state); }, {model, "corrupt"});
  EXPECT_EQ(state.epoch, 99);  // untouched
  EXPECT_EQ(optimizer.num_states(), 0u);
  // The Learner refuses to resume from it.
  expect_error([&] { fit(files, 1, 2); }, {model, "corrupt"});
  // A truncated state file is reported too.
  std::filesystem::resize_file(files->state_path(1), 10);
  expect_error([&] { files->restore(1, fresh, optimizer, state); },
               {files->state_path(1), "not a training state"});
  expect_error([&] { files->restore(7, fresh, optimizer, state); }, {"state-7.json"});
}

}  // namespace
}  // namespace ember::train

namespace ember::train {
namespace {

TEST(TrainingStateJson, NonFiniteMetricStatesRoundTrip) {
  // A loss that diverged inside the epoch: its sums are NaN or infinite, which JSON cannot hold
  // as numbers; the checkpoint must still load.
  TrainingState s;
  s.epoch = 2;
  s.iteration = 5;
  const double inf = std::numeric_limits<double>::infinity();
  s.metric_states = {{"Loss", {std::nan(""), 8.0}}, {"Accuracy", {inf, -inf, 1.5}}};
  TrainingState back = TrainingState::from_json(s.to_json(), "test");
  ASSERT_EQ(back.metric_states.size(), 2u);
  std::map<std::string, std::vector<double>> by_name(back.metric_states.begin(),
                                                     back.metric_states.end());
  EXPECT_TRUE(std::isnan(by_name["Loss"][0]));
  EXPECT_EQ(by_name["Loss"][1], 8.0);
  EXPECT_EQ(by_name["Accuracy"], (std::vector<double>{inf, -inf, 1.5}));
  EXPECT_THROW(TrainingState::from_json(
                   R"({"epoch":1,"iteration":1,"optimizer_steps":0,"global_step":1,"rng_seed":0,)"
                   R"("rng_offset":0,"epoch_values":[],"metric_states":{"Loss":["x"]}})",
                   "bad"),
               Error);
}

}  // namespace
}  // namespace ember::train
