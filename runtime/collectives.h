#pragma once
// Collective communication between devices (data-parallel training): a Communicator is one
// rank's membership of a group of devices, in this process or in others. Its operations are
// enqueued on the device's stream after the work already submitted there and return at once;
// the host never waits for them (NCCL on CUDA devices).
#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/ops.h"
#include "runtime/backend.h"

namespace ember::runtime {

enum class CollectiveOp : uint8_t { Sum, Mean, Max, Min, Prod };

// What the ranks of one group share to find each other (NCCL's unique id): made by rank 0,
// handed to the others out of band (a file, a TCP store).
struct CommId {
  std::array<char, 128> bytes{};
};

// One collective: which, how it reduces (all-reduce, reduce-scatter), from which root
// (broadcast).
struct CollectiveCall {
  ir::CollectiveKind kind = ir::CollectiveKind::AllReduce;
  CollectiveOp op = CollectiveOp::Sum;
  int root = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Backend& device() const = 0;
  // Enqueues `call` from `in` to `out` on `stream` (a native stream of device(); null: the
  // device's own). Every array is contiguous, on device(), of one dtype; `out` may be `in`
  // (all-reduce, broadcast). Arrays: all-reduce and broadcast keep the size; all-gather's `out`
  // holds size() blocks of in's elements, rank r's at block r; reduce-scatter's `in` holds
  // size() blocks of out's, rank r receiving block r reduced over the ranks. `captured`: into
  // a CUDA graph being captured, whose launch the caller has the watchdog time (watch()).
  virtual void enqueue(const CollectiveCall& call, const Array& in, const Array& out,
                       void* stream = nullptr, bool captured = false) = 0;
  // The watchdog times the work on the device's own stream so far (a launched graph holding
  // captured collectives) under the name `what`.
  virtual void watch(const char* what) = 0;

  void all_reduce(const Array& in, const Array& out, CollectiveOp op) {
    enqueue({ir::CollectiveKind::AllReduce, op, 0}, in, out);
  }
  // Rank `root`'s `in` into every rank's `out`.
  void broadcast(const Array& in, const Array& out, int root) {
    enqueue({ir::CollectiveKind::Broadcast, CollectiveOp::Sum, root}, in, out);
  }
  void all_gather(const Array& in, const Array& out) {
    enqueue({ir::CollectiveKind::AllGather, CollectiveOp::Sum, 0}, in, out);
  }
  void reduce_scatter(const Array& in, const Array& out, CollectiveOp op) {
    enqueue({ir::CollectiveKind::ReduceScatter, op, 0}, in, out);
  }
};

// Communicators by id, so that graph nodes (ir::CollectiveAttrs::communicator) can name them:
// the registry keeps the id while the communicator lives (ids are never reused).
int register_communicator(const std::shared_ptr<Communicator>& c);
// The communicator of `id`; throws ember::Error when it is gone.
std::shared_ptr<Communicator> communicator(int id);
// The collective of `attrs` from `in` to `out` as external work of a launch sequence
// (Backend::launch_sequence): enqueued between the kernels, or captured into a CUDA graph.
std::shared_ptr<const ExternalWork> collective_work(const ir::CollectiveAttrs& attrs, Array in,
                                                    Array out);

// Whether collectives can run between CUDA devices here (NCCL loadable); when not, why.
bool collectives_available(std::string* why = nullptr);
// NCCL's version ("2.28.9"), or "none".
std::string collectives_version();

// A new id for a group (rank 0 makes it).
CommId new_comm_id();

// Joins group `id` as `rank` of `size` on `device` (one process per device). Blocks until every
// rank has joined. Throws ember::Error naming the rank and NCCL's message on failure.
std::unique_ptr<Communicator> join_group(Backend& device, int size, int rank, const CommId& id);

// One process driving every device of the group: one communicator per device, rank = position.
std::vector<std::unique_ptr<Communicator>> local_group(std::span<Backend* const> devices);

// Runs `calls` (one collective per communicator of a local group) as one group call, as a
// process that drives several devices must (each call would otherwise wait for the others).
void grouped(const std::function<void()>& calls);

}  // namespace ember::runtime
