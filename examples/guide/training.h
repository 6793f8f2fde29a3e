#pragma once
// The guide's "Training" chapter: the experiment's config and train(), which builds the data
// loaders and the Learner, fits the model and saves it with its config for inference.
#include <string>

#include "model.h"
#include "optim/adam.h"

namespace guide {

struct TrainingConfig {
  ModelConfig model = ModelConfig(10, 512);
  optim::AdamConfig optimizer = optim::AdamConfig();
  int64_t num_epochs = 3;
  int64_t batch_size = 64;
  int64_t num_workers = 1;
  uint64_t seed = 42;
  double learning_rate = 2e-3;
  double final_learning_rate = 1e-4;  // cosine annealing from learning_rate down to this
  TrainingConfig(ModelConfig model, optim::AdamConfig optimizer)
      : model(std::move(model)), optimizer(std::move(optimizer)) {}
  EMBER_CONFIG(TrainingConfig, model, optimizer, num_epochs, batch_size, num_workers, seed,
               learning_rate, final_learning_rate)
};

struct TrainingRun {
  std::string model_path;
  std::string report_path;
  double valid_accuracy = 0;  // the last epoch's, in percent
  bool interrupted = false;
  bool main_rank = true;  // false on the other ranks of data-parallel training (nothing written)
};

// Trains on Fashion-MNIST from `data_dir` (the test split as the validation set, as the guide
// does), writing everything under artifact_dir (emptied first); resume_epoch > 0 continues
// from that epoch's checkpoint instead. `limit` > 0 trains on that many images per epoch and
// validates on as many (a quick run).
TrainingRun train(const std::string& artifact_dir, const TrainingConfig& config,
                  const Device& device, const std::string& data_dir, int64_t resume_epoch,
                  int64_t limit);

}  // namespace guide
