#pragma once
// Data-parallel training as a plain API (PyTorch's DistributedDataParallel, by hand): every rank
// holds a replica of the model, starts from rank 0's values, runs its own share of the batch,
// and averages gradients with the others before its optimizer step, so every replica takes the
// same step as one device would on the combined batch.
//
//   dist::ProcessGroup group = dist::ProcessGroup::from_env();
//   optim::DataParallel dp(group);
//   model = dp.broadcast_module(model);
//   ... grads = dp.sync(GradientsParams::from_grads(loss.backward(), model), model);
//   model = optimizer.step(lr, model, std::move(grads));
#include <string>
#include <vector>

#include "frontend/distributed.h"
#include "nn/module_ops.h"
#include "optim/gradients_params.h"

namespace ember::optim {

class DataParallel {
 public:
  // Gradients travel in buckets of about `bucket_bytes` (one all-reduce each).
  explicit DataParallel(dist::ProcessGroup group, int64_t bucket_bytes = int64_t{25} << 20)
      : group_(std::move(group)), bucket_bytes_(bucket_bytes) {}

  const dist::ProcessGroup& group() const { return group_; }
  int rank() const { return group_.rank(); }
  int world_size() const { return group_.size(); }
  // Only the main rank writes checkpoints and logs.
  bool is_main() const { return group_.is_main(); }

  // `module` with every Param and Buffer holding rank 0's values (ids and trainability kept).
  template <nn::Module M>
  M broadcast_module(const M& module) const {
    if (group_.size() == 1) return module;
    return nn::map(module, [&](const std::string&, const auto& p) {
      if constexpr (nn::is_param_v<std::decay_t<decltype(p)>>) {
        return p.with_value(dist::broadcast(p.val().detach(), 0, group_));
      } else {
        return p.with_value(dist::broadcast(p.value(), 0, group_));
      }
    });
  }

  // Each gradient replaced by its mean over the ranks. Buckets follow the module's parameters
  // last to first (the order backward produces them).
  template <nn::Module M>
  GradientsParams sync(GradientsParams grads, const M& module) const {
    if (group_.size() == 1) return grads;
    std::vector<ParamId> order;
    nn::visit_params(module, [&](const std::string&, const auto& p) { order.push_back(p.id()); });
    return sync(std::move(grads), order);
  }
  // The same with the module's parameter ids in its declaration order (as nn::visit_params
  // gives them; every rank must pass the same order: ids themselves differ between processes).
  GradientsParams sync(GradientsParams grads, const std::vector<ParamId>& module_order) const;

 private:
  [[noreturn]] static void detail_throw_foreign(size_t grads, size_t known);

  dist::ProcessGroup group_;
  int64_t bucket_bytes_;
};

}  // namespace ember::optim
