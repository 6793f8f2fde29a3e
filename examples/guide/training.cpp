#include "training.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "data/dataloader.h"
#include "data/mnist_dataset.h"
#include "data/transform/partial.h"
#include "optim/scheduler/cosine_annealing.h"
#include "train/data_parallel.h"
#include "train/file_checkpointer.h"
#include "train/learner_builder.h"
#include "train/metric/accuracy.h"
#include "train/metric/loss.h"

namespace guide {

namespace {

using Batcher = data::MnistBatcher;

// `shard`: this rank's share of every epoch (data-parallel training), else all of it.
std::shared_ptr<data::DataLoader<data::MnistBatch>> loader(
    std::shared_ptr<data::Dataset<data::MnistItem>> dataset, const TrainingConfig& c,
    const Device& device, const train::DeviceStrategy* shard = nullptr) {
  data::DataLoaderBuilder<data::MnistItem, data::MnistBatch> b(std::make_shared<Batcher>());
  b.batch_size(static_cast<size_t>(c.batch_size))
      .shuffle(c.seed)
      .num_workers(static_cast<size_t>(c.num_workers));
  if (shard != nullptr && shard->world_size() > 1) {
    b.shard(static_cast<size_t>(shard->rank()), static_cast<size_t>(shard->world_size()));
  }
  return b.build(std::move(dataset), device);
}

// Several ranks (WORLD_SIZE > 1, one process per GPU): data parallel over NCCL, each rank on
// cuda:LOCAL_RANK; otherwise the one device asked for.
std::shared_ptr<train::DeviceStrategy> strategy_for(const Device& device) {
  const char* world = std::getenv("WORLD_SIZE");
  if (world != nullptr && std::atoi(world) > 1) return train::DataParallelStrategy::from_env();
  return std::make_shared<train::SingleDeviceStrategy>(device);
}

std::shared_ptr<data::Dataset<data::MnistItem>> limited(data::MnistDataset dataset, int64_t limit) {
  auto all = std::make_shared<data::MnistDataset>(std::move(dataset));
  if (limit <= 0) return all;
  return std::make_shared<data::PartialDataset<data::MnistItem>>(
      all, 0, std::min(static_cast<size_t>(limit), all->len()));
}

}  // namespace

TrainingRun train(const std::string& artifact_dir, const TrainingConfig& config,
                  const Device& requested, const std::string& data_dir, int64_t resume_epoch,
                  int64_t limit) {
  auto strategy = strategy_for(requested);
  const Device device = strategy->device();
  if (strategy->is_main()) {
    if (resume_epoch <= 0) {  // a fresh run: old artifacts would mix into the summary
      std::filesystem::remove_all(artifact_dir);
    }
    std::filesystem::create_directories(artifact_dir);
    config.save(artifact_dir + "/config.json");
  }
  seed(config.seed);

  auto train_loader =
      loader(limited(data::MnistDataset::train(data_dir), limit), config, device, strategy.get());
  auto valid_loader = loader(limited(data::MnistDataset::test(data_dir), limit), config, device);
  const auto steps = config.num_epochs * static_cast<int64_t>(train_loader->num_batches());
  optim::CosineAnnealingLrScheduler schedule(config.learning_rate, steps,
                                             config.final_learning_rate);

  auto builder = train::LearnerBuilder<Model, optim::AdamRule>(artifact_dir);
  builder.metric_train_numeric(train::AccuracyMetric())
      .metric_valid_numeric(train::AccuracyMetric())
      .metric_train_numeric(train::LossMetric())
      .metric_valid_numeric(train::LossMetric())
      .with_checkpointer(std::make_shared<train::FileCheckpointer<Model, optim::AdamRule>>(
          artifact_dir + "/checkpoint"))
      .checkpointing(train::CheckpointPolicy{2, "Accuracy", train::Split::Valid})
      .num_epochs(config.num_epochs)
      .devices(strategy)
      .stop_on_ctrl_c()
      .summary();
  if (resume_epoch > 0) builder.checkpoint(resume_epoch);
  auto learner = builder.build(config.model.init(device), config.optimizer.init(), schedule);
  Model trained = learner.fit(train_loader, valid_loader);

  TrainingRun run;
  run.model_path = artifact_dir + "/model.ember";
  if (strategy->is_main()) nn::save(trained, run.model_path);
  run.main_rank = strategy->is_main();
  run.report_path = learner.result().report_path;
  run.interrupted = learner.result().interrupted;
  if (const auto* accuracy = learner.history().find("Accuracy")) {
    const auto& epochs = accuracy->epochs[static_cast<int>(train::Split::Valid)];
    if (!epochs.empty()) run.valid_accuracy = epochs.back().second;
  }
  return run;
}

}  // namespace guide
