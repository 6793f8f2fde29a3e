#include "frontend/detail/tape.h"

#include "absl/strings/str_cat.h"
#include "frontend/autodiff.h"
#include "frontend/detail/stream.h"
#include "ir/error.h"

namespace ember {
namespace detail {
namespace {

thread_local bool g_grad_enabled = true;
std::atomic<Checkpointing> g_checkpointing{Checkpointing::balanced};

// A node for a value that enters a tracked op without being tracked itself: its recipe when it
// is pending and cheap to remake (recomputed in backward, bit-exactly for random), otherwise the
// value, kept.
std::shared_ptr<TapeNode> constant_node(const RawTensor& t) {
  std::vector<std::shared_ptr<TapeNode>> made;
  if (auto steps = Stream::of(t.device()).recipe(t)) {
    for (auto& step : *steps) {
      auto node = std::make_shared<TapeNode>();
      node->prim = std::move(step.node);
      for (int a : step.args) node->inputs.push_back(made[a]);
      if (node->prim.op == ir::OpKind::Input) {
        node->value = step.kept.value();
        node->saved = std::move(step.kept);
      }
      made.push_back(std::move(node));
    }
    made.back()->value = t.value();
    return made.back();
  }
  auto node = std::make_shared<TapeNode>();
  node->prim = ir::Node{ir::OpKind::Input, {}, t.type(), ir::InputAttrs{0}};
  node->saved = t.detached();
  node->value = t.value();
  return node;
}

}  // namespace

TapeNode::~TapeNode() {
  std::vector<std::shared_ptr<TapeNode>> pending = std::move(inputs);
  while (!pending.empty()) {
    std::shared_ptr<TapeNode> n = std::move(pending.back());
    pending.pop_back();
    if (n && n.use_count() == 1) {
      for (auto& in : n->inputs) pending.push_back(std::move(in));
      n->inputs.clear();
    }
  }
}

bool grad_enabled() { return g_grad_enabled; }
Checkpointing current_checkpointing() { return g_checkpointing.load(std::memory_order_relaxed); }

RawTensor track(const RawTensor& out, const ir::Node& recorded,
                std::span<const RawTensor* const> inputs) {
  auto node = std::make_shared<TapeNode>();
  node->prim = recorded;
  for (const RawTensor* in : inputs) {
    node->inputs.push_back(in->tape() ? in->tape() : constant_node(*in));
  }
  if (ir::keeps_for_backward(node->prim, current_checkpointing())) node->saved = out.detached();
  node->value = out.value();
  return RawTensor(out.value(), std::move(node));
}

}  // namespace detail

void set_checkpointing(Checkpointing policy) { detail::g_checkpointing = policy; }
Checkpointing checkpointing() { return detail::current_checkpointing(); }

CheckpointingGuard::CheckpointingGuard(Checkpointing policy) : previous_(checkpointing()) {
  set_checkpointing(policy);
}
CheckpointingGuard::~CheckpointingGuard() { set_checkpointing(previous_); }

NoGradGuard::NoGradGuard() : previous_(detail::g_grad_enabled) { detail::g_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { detail::g_grad_enabled = previous_; }

RawTensor require_grad(const RawTensor& t) {
  if (!is_float(t.dtype())) {
    throw Error(absl::StrCat("require_grad: only float tensors carry gradients, got ",
                             t.type().to_string()));
  }
  if (t.tape()) return t;
  auto node = std::make_shared<detail::TapeNode>();
  node->prim = ir::Node{ir::OpKind::Input, {}, t.type(), ir::InputAttrs{0}};
  node->saved = t.detached();
  node->value = t.value();
  node->leaf = true;
  return RawTensor(t.value(), std::move(node));
}

bool is_require_grad(const RawTensor& t) { return t.tape() != nullptr && is_float(t.dtype()); }

std::optional<RawTensor> Gradients::get(const RawTensor& leaf) const {
  if (!leaf.tape()) return std::nullopt;
  auto it = grads_.find(leaf.tape()->id);
  if (it == grads_.end()) return std::nullopt;
  return it->second;
}

std::optional<RawTensor> Gradients::remove(const RawTensor& leaf) {
  std::optional<RawTensor> g = get(leaf);
  if (g) grads_.erase(leaf.tape()->id);
  return g;
}

}  // namespace ember
