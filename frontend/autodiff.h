#pragma once
// Autodiff API: gradients of a tensor with respect to the tracked leaves it was computed from.
// `x.require_grad()` marks a leaf; ops on tracked tensors are recorded onto a tape; `backward()`
// differentiates that record into ordinary lazy ops (planned and fused like the forward pass) and
// returns the leaves' gradients. See tape.h for the mechanism.
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "frontend/raw_tensor.h"
#include "ir/autodiff.h"

namespace ember {

// How backward() obtains the forward values it reads: `save_all` keeps them all; `balanced`
// keeps the outputs of matmuls, reductions and sorts and recomputes memory-bound chains from
// them inside the backward kernels. Gradients are the same under both.
using ir::Checkpointing;

// The policy ops recorded from now on follow (which values the tape keeps alive), and the
// default of backward(). Initially Checkpointing::balanced.
void set_checkpointing(Checkpointing policy);
Checkpointing checkpointing();

// Sets the policy for a scope, restoring the previous one at its end.
class CheckpointingGuard {
 public:
  explicit CheckpointingGuard(Checkpointing policy);
  ~CheckpointingGuard();
  CheckpointingGuard(const CheckpointingGuard&) = delete;
  CheckpointingGuard& operator=(const CheckpointingGuard&) = delete;

 private:
  Checkpointing previous_;
};

// Inference mode for a scope (per thread): nothing is recorded onto the tape, so no forward
// value is kept for a backward pass. Nests.
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// Whether backward() first starts the work recorded so far (the forward pass) on a device that
// runs work asynchronously (CUDA), so that the device computes the forward while the host builds
// and records the backward pass. On by default (EMBER_FLUSH_BEFORE_BACKWARD=0 turns it off at
// start). Off, forward and backward run in one flush: one launch, kernels fused across the two.
// Devices that wait for each flush (the CPU, Vulkan) always keep them in one flush. A forward
// that fails to compute then throws from backward(). Process-wide; returns the previous setting.
bool set_flush_before_backward(bool on);
bool flush_before_backward();

// The gradients one backward() produced, by leaf. Read them with `leaf.grad(grads)`.
class Gradients {
 public:
  // The gradient of `leaf`, if the differentiated value depends on it.
  std::optional<RawTensor> get(const RawTensor& leaf) const;
  // The same, removed from the set.
  std::optional<RawTensor> remove(const RawTensor& leaf);
  size_t size() const { return grads_.size(); }
  bool empty() const { return grads_.empty(); }

 private:
  friend Gradients backward(const RawTensor& root, std::optional<Checkpointing> policy);
  std::unordered_map<uint64_t, RawTensor> grads_;  // by tape node id of the leaf
};

// Gradients of `root` (seeded with ones: for a non-scalar root, those of its sum) with respect
// to every leaf it depends on. Throws ember::Error when root was not computed from a tracked
// tensor or is not a float tensor.
Gradients backward(const RawTensor& root, std::optional<Checkpointing> policy = std::nullopt);

// `t` as a tracked leaf (t itself when it is already tracked). Float tensors only.
RawTensor require_grad(const RawTensor& t);
// Whether gradients flow to `t` from backward(): a tracked float tensor.
bool is_require_grad(const RawTensor& t);

}  // namespace ember
