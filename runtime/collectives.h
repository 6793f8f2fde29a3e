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

#include "runtime/backend.h"

namespace ember::runtime {

enum class CollectiveOp : uint8_t { Sum, Mean, Max, Min, Prod };

// What the ranks of one group share to find each other (NCCL's unique id): made by rank 0,
// handed to the others out of band (a file, a TCP store).
struct CommId {
  std::array<char, 128> bytes{};
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Backend& device() const = 0;
  // Every array is contiguous, on device(), of one dtype. `out` may be `in` (in place).
  virtual void all_reduce(const Array& in, const Array& out, CollectiveOp op) = 0;
  // Rank `root`'s `in` into every rank's `out`.
  virtual void broadcast(const Array& in, const Array& out, int root) = 0;
  // `out` holds size() blocks of in's elements, rank r's at block r.
  virtual void all_gather(const Array& in, const Array& out) = 0;
  // `in` holds size() blocks of out's elements; rank r receives block r reduced over ranks.
  virtual void reduce_scatter(const Array& in, const Array& out, CollectiveOp op) = 0;
};

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
