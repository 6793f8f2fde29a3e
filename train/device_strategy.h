#pragma once
// Where the Learner trains (Burn's device strategies): one device now; data parallelism plugs
// in as another strategy whose broadcast() sends rank 0's parameters to every device at the
// start, whose sync() all-reduces the gradients (their mean) before each optimizer step, and
// whose rank() makes only rank 0 write checkpoints and logs.
#include <vector>

#include "frontend/device.h"
#include "frontend/raw_tensor.h"
#include "optim/gradients_params.h"

namespace ember::train {

class DeviceStrategy {
 public:
  virtual ~DeviceStrategy() = default;
  // The device this process's replica trains on.
  virtual Device device() const = 0;
  virtual int rank() const { return 0; }
  virtual int world_size() const { return 1; }
  // Only the main rank writes checkpoints, logs, event files and the report.
  bool is_main() const { return rank() == 0; }
  // The value rank 0 holds, on every rank (each parameter at the start of fit()).
  virtual RawTensor broadcast(const RawTensor& value) { return value; }
  // The gradients each rank steps with (the all-reduced mean under data parallelism).
  // `module_order`: the model's parameter ids in declaration order, the same on every rank
  // (the ids themselves differ between processes), which fixes how gradients are bucketed.
  virtual optim::GradientsParams sync(optim::GradientsParams grads,
                                      const std::vector<nn::ParamId>& module_order) {
    (void)module_order;
    return grads;
  }
};

class SingleDeviceStrategy : public DeviceStrategy {
 public:
  explicit SingleDeviceStrategy(Device device) : device_(device) {}
  Device device() const override { return device_; }

 private:
  Device device_;
};

}  // namespace ember::train
