#pragma once
// The Learner's data-parallel device strategy: one process per GPU (ranks from the environment,
// as torchrun or scripts/dist-run.sh set them), every replica starting from rank 0's
// parameters, gradients averaged over the ranks (optim::DataParallel, NCCL) before each
// optimizer step, only rank 0 writing checkpoints, logs and the report. Give each rank its share
// of the data with DataLoaderBuilder::shard(strategy->rank(), strategy->world_size()).
#include <memory>
#include <vector>

#include "frontend/distributed.h"
#include "optim/data_parallel.h"
#include "train/device_strategy.h"

namespace ember::train {

class DataParallelStrategy : public DeviceStrategy {
 public:
  explicit DataParallelStrategy(dist::ProcessGroup group) : dp_(std::move(group)) {}
  // dist::ProcessGroup::from_env(): a group of one on the default device without WORLD_SIZE.
  static std::shared_ptr<DataParallelStrategy> from_env() {
    return std::make_shared<DataParallelStrategy>(dist::ProcessGroup::from_env());
  }

  Device device() const override { return dp_.group().device(); }
  int rank() const override { return dp_.rank(); }
  int world_size() const override { return dp_.world_size(); }
  RawTensor broadcast(const RawTensor& value) override {
    return dist::broadcast(value, 0, dp_.group());
  }
  optim::GradientsParams sync(optim::GradientsParams grads,
                              const std::vector<nn::ParamId>& module_order) override {
    return dp_.sync(std::move(grads), module_order);
  }

 private:
  optim::DataParallel dp_;
};

}  // namespace ember::train
