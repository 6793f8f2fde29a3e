#pragma once
// The autodiff record: every value computed from a tracked tensor carries a TapeNode holding the
// primitive that made it and the nodes of its inputs. backward() turns the nodes reachable from
// the loss into an IR graph, differentiates it (ir/autodiff.h) and records the result as ordinary
// lazy ops. Internal to the frontend.
#include <atomic>
#include <memory>
#include <span>
#include <vector>

#include "frontend/raw_tensor.h"
#include "ir/autodiff.h"
#include "ir/graph.h"

namespace ember::detail {

struct TapeNode {
  // The primitive (op, attrs, type, label); its `inputs` are ids of a stream graph long gone,
  // only their count matters: `inputs` below says what it read. Leaves and constants hold an
  // Input node.
  ir::Node prim;
  std::vector<std::shared_ptr<TapeNode>> inputs;
  // The value, held when the checkpointing policy in force at record time keeps it for
  // backward (always for leaves and constants); otherwise backward recomputes it.
  RawTensor saved;
  std::weak_ptr<LazyValue> value;  // the value while anything else still holds it
  bool leaf = false;               // made by require_grad(): backward reports its gradient
  uint64_t id = next_id();

  TapeNode() = default;
  TapeNode(const TapeNode&) = delete;
  TapeNode& operator=(const TapeNode&) = delete;
  // Releases long chains iteratively: a recursive release would overflow the stack.
  ~TapeNode();

 private:
  static uint64_t next_id() {
    static std::atomic<uint64_t> counter{1};
    return counter.fetch_add(1, std::memory_order_relaxed);
  }
};

// Whether ops record onto the tape (false inside a NoGradGuard).
bool grad_enabled();
ir::Checkpointing current_checkpointing();

// Whether recording an op with these inputs must extend the tape.
inline bool tracking(std::span<const RawTensor* const> inputs) {
  if (!grad_enabled()) return false;
  for (const RawTensor* t : inputs) {
    if (t->tape()) return true;
  }
  return false;
}

// Attaches to `out` a tape node for the primitive `recorded` (the node the stream appended),
// whose inputs were `inputs`.
RawTensor track(const RawTensor& out, const ir::Node& recorded,
                std::span<const RawTensor* const> inputs);

}  // namespace ember::detail
