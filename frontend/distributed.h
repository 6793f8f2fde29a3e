#pragma once
// Collectives between devices for data-parallel training (NCCL on CUDA devices). A
// ProcessGroup is this process's place in a group of ranks, one device each: one process per
// GPU (ranks from the environment, as torchrun sets them) or one process driving several GPUs
// (ProcessGroup::local). In a group of one process per GPU a collective is an op like any
// other, recorded lazily: it runs inside the flush that computes its input, as soon as that
// input is ready (while the rest of a backward pass still runs), and a repeated step replays it
// inside the step's CUDA graph. A local group's collectives are issued at once, one group call
// over the devices (NCCL needs that of one thread driving several GPUs). A group of one (no
// NCCL needed, any device) makes every collective the identity, so the same program runs on one
// device unchanged.
//
//   auto group = dist::ProcessGroup::from_env();           // RANK, WORLD_SIZE, LOCAL_RANK
//   auto g = dist::all_reduce(grad, dist::ReduceOp::Mean, group);
#include <memory>
#include <string>
#include <vector>

#include "frontend/tensor.h"

namespace ember::runtime {
class Communicator;
}

namespace ember::dist {

enum class ReduceOp { Sum, Mean, Max, Min, Prod };

// Whether collectives between CUDA devices can run here (NCCL loadable); when not, why.
bool available(std::string* why = nullptr);

class ProcessGroup {
 public:
  // A group of one on `device`.
  static ProcessGroup single(const Device& device);
  // Joins a group of `world_size` ranks as `rank` on `device` (a CUDA device when world_size >
  // 1). `init` says where rank 0 publishes the group's id for the others: "file:PATH" (a path
  // all ranks see; rank 0 removes it once every rank has joined) or "tcp://HOST:PORT" (rank 0
  // listens on PORT). Blocks until every rank has joined or EMBER_DIST_INIT_TIMEOUT_S (300)
  // passes, then throws ember::Error.
  static ProcessGroup join(const Device& device, int rank, int world_size, const std::string& init);
  // From the environment: RANK, WORLD_SIZE and LOCAL_RANK (device cuda:LOCAL_RANK), and
  // EMBER_DIST_INIT, else MASTER_ADDR and MASTER_PORT as torchrun sets them (port + 1 under
  // torchrun, whose own store holds MASTER_PORT). Without WORLD_SIZE (or WORLD_SIZE=1): a
  // group of one on Device::default_device().
  static ProcessGroup from_env();
  // One process driving `devices` (CUDA devices, or a single device of any kind): group i is
  // rank i on devices[i]. Collectives over such groups take one tensor per group (below).
  static std::vector<ProcessGroup> local(const std::vector<Device>& devices);

  int rank() const { return rank_; }
  int size() const { return size_; }
  const Device& device() const { return device_; }
  // Rank 0: the one that writes checkpoints and logs.
  bool is_main() const { return rank_ == 0; }
  // The communicator (null for a group of one).
  const std::shared_ptr<runtime::Communicator>& communicator() const { return comm_; }

 private:
  friend struct GroupAccess;
  ProcessGroup(Device device, int rank, int size, std::shared_ptr<runtime::Communicator> comm,
               int lazy_id = 0)
      : device_(device), rank_(rank), size_(size), comm_(std::move(comm)), lazy_id_(lazy_id) {}
  Device device_;
  int rank_ = 0, size_ = 1;
  std::shared_ptr<runtime::Communicator> comm_;
  // The communicator's registry id when collectives are recorded lazily (one process per GPU);
  // 0 for local groups and groups of one.
  int lazy_id_ = 0;
};

// Each rank's `x` (same shape and dtype on every rank, on the group's device) reduced over the
// ranks; every rank gets the result.
RawTensor all_reduce(const RawTensor& x, ReduceOp op, const ProcessGroup& group);
// Rank `root`'s x, on every rank.
RawTensor broadcast(const RawTensor& x, int root, const ProcessGroup& group);
// Every rank's x concatenated along dim 0 in rank order.
RawTensor all_gather(const RawTensor& x, const ProcessGroup& group);
// x reduced over the ranks and split along dim 0 (divisible by the group size): rank r keeps
// part r.
RawTensor reduce_scatter(const RawTensor& x, ReduceOp op, const ProcessGroup& group);

template <int D, class K>
Tensor<D, K> all_reduce(const Tensor<D, K>& x, ReduceOp op, const ProcessGroup& group) {
  return Tensor<D, K>(all_reduce(x.raw(), op, group), "dist::all_reduce");
}
template <int D, class K>
Tensor<D, K> broadcast(const Tensor<D, K>& x, int root, const ProcessGroup& group) {
  return Tensor<D, K>(broadcast(x.raw(), root, group), "dist::broadcast");
}

// Local groups (ProcessGroup::local): xs[i] on groups[i]'s device, all in one group call.
std::vector<RawTensor> all_reduce(const std::vector<RawTensor>& xs, ReduceOp op,
                                  const std::vector<ProcessGroup>& groups);
std::vector<RawTensor> broadcast(const std::vector<RawTensor>& xs, int root,
                                 const std::vector<ProcessGroup>& groups);

}  // namespace ember::dist
