// backward(): the tape reachable from the root becomes an IR graph whose forward values are
// either kept ones (graph inputs) or recipes recomputed from them, as the checkpointing policy
// says; ir::reverse_mode appends the gradient nodes; the stream records the pruned result as
// ordinary lazy ops, so forward recomputation fuses into the backward kernels.
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "frontend/autodiff.h"
#include "frontend/detail/forward_flush.h"
#include "frontend/detail/stream.h"
#include "frontend/detail/tape.h"
#include "ir/error.h"

namespace ember {
namespace {

using detail::TapeNode;

class BackwardGraph {
 public:
  explicit BackwardGraph(Checkpointing policy) : policy_(policy), b_(g_) {}

  // Appends n twice when needed: its structure (replayed from its inputs' structure, what is
  // differentiated) and its value (kept, or recomputed from its inputs' values).
  void add(const TapeNode* n) {
    if (n->prim.op == ir::OpKind::Input) {  // leaves and constants: always kept
      ir::ValueId id = given_input(n, n->saved.defined() ? n->saved : alive(*n));
      ids_[n] = {id, id};
      return;
    }
    ir::ValueIds structure, values;
    for (const auto& in : n->inputs) {
      structure.push_back(ids_.at(in.get()).structure);
      values.push_back(ids_.at(in.get()).value);
    }
    ir::ValueId s = b_.replay(n->prim, structure);
    ir::ValueId v = s;
    if (std::optional<RawTensor> kept = kept_value(*n)) {
      v = given_input(n, std::move(*kept));
    } else if (values != structure) {
      v = b_.replay(n->prim, values);
    }
    ids_[n] = {s, v};
  }

  // values[s] for each structural id s (identity elsewhere): what reverse_mode reads.
  std::vector<ir::ValueId> value_map() const {
    std::vector<ir::ValueId> map(g_.size());
    for (ir::ValueId i = 0; i < g_.size(); ++i) map[i] = i;
    for (const auto& [node, ids] : ids_) map[ids.structure] = ids.value;
    return map;
  }

  ir::Graph& graph() { return g_; }
  ir::ValueId id(const TapeNode* n) const { return ids_.at(n).structure; }
  const std::vector<RawTensor>& given() const { return given_; }

 private:
  struct Ids {
    ir::ValueId structure, value;
  };

  ir::ValueId given_input(const TapeNode* n, RawTensor value) {
    if (!value.defined()) {
      throw Error("backward: a value the backward pass needs is no longer available");
    }
    ir::ValueId id = b_.input(static_cast<int>(given_.size()), n->prim.type);
    given_.push_back(std::move(value));
    return id;
  }

  static RawTensor alive(const TapeNode& n) {
    auto v = n.value.lock();
    return v ? RawTensor(std::move(v)) : RawTensor();
  }

  // Sources (full, iota, random) are always recomputed: they cost nothing to remake. A value the
  // policy would recompute is read instead when it is already computed and still held (the
  // forward flushed before backward(), e.g. to read the loss).
  std::optional<RawTensor> kept_value(const TapeNode& n) const {
    if (n.inputs.empty()) return std::nullopt;
    if (!ir::keeps_for_backward(n.prim, policy_)) {
      RawTensor v = alive(n);
      const bool computed = v.defined() && detail::Stream::of(v.device()).computed(v);
      return computed ? std::optional<RawTensor>(v) : std::nullopt;
    }
    if (n.saved.defined()) return n.saved;
    if (RawTensor v = alive(n); v.defined()) return v;
    return std::nullopt;  // recorded under a policy that let it go: recomputed
  }

  Checkpointing policy_;
  ir::Graph g_;
  ir::Builder b_;
  std::vector<RawTensor> given_;
  absl::flat_hash_map<const TapeNode*, Ids> ids_;
};

std::atomic<bool>& flush_before_backward_setting() {
  static std::atomic<bool> on{[] {
    const char* env = std::getenv("EMBER_FLUSH_BEFORE_BACKWARD");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }()};
  return on;
}

// The forward pass starts on an asynchronous device before the backward is built: the host's
// tape walk, VJP rules and recording then overlap the device's work instead of preceding it
// (conv_block_train on an H200: 1.77-1.78 ms a step against 1.86-1.90 in one flush, session
// 27). Not where the backward would then recompute and store again more product operands than
// that is worth (detail/forward_flush.h).
void start_forward(const Device& device, const std::vector<const TapeNode*>& order) {
  if (!flush_before_backward()) return;
  const runtime::Backend& backend = detail::backend_for(device);
  if (!backend.ordered_stream() || backend.runs_on_cpu()) return;
  if (detail::recomputed_operand_bytes(order) > detail::kEarlyFlushRecomputeBytes) return;
  detail::Stream::of(device).flush();
}

}  // namespace

bool set_flush_before_backward(bool on) { return flush_before_backward_setting().exchange(on); }
bool flush_before_backward() { return flush_before_backward_setting().load(); }

Gradients backward(const RawTensor& root, std::optional<Checkpointing> policy) {
  if (!root.tape()) {
    throw Error(absl::StrCat("backward: tensor ", root.type().to_string(),
                             " was not computed from a tensor that requires grad"));
  }
  if (!is_float(root.dtype())) {
    throw Error(absl::StrCat("backward: needs a float tensor, got ", root.type().to_string()));
  }
  std::vector<const TapeNode*> order = detail::topological_order(root.tape().get());
  start_forward(root.device(), order);
  BackwardGraph bg(policy.value_or(checkpointing()));
  for (const TapeNode* n : order) bg.add(n);

  ir::Graph& g = bg.graph();
  ir::ValueId out = bg.id(root.tape().get());
  ir::ValueId seed = ir::Builder(g).full(root.shape(), root.dtype(), ir::Scalar::from_double(1));
  std::vector<ir::ValueId> wrt;
  std::vector<uint64_t> leaves;
  for (const TapeNode* n : order) {
    if (!n->leaf) continue;
    wrt.push_back(bg.id(n));
    leaves.push_back(n->id);
  }
  std::vector<ir::ValueId> values = bg.value_map();
  std::vector<ir::ValueId> grads = ir::reverse_mode(g, out, seed, wrt, &values);

  std::vector<ir::ValueId> outputs;
  std::vector<uint64_t> owners;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i] < 0) continue;
    outputs.push_back(grads[i]);
    owners.push_back(leaves[i]);
  }
  Gradients result;
  if (outputs.empty()) return result;
  ir::Graph pruned = g.prune(outputs);
  std::vector<RawTensor> recorded =
      detail::Stream::of(root.device()).record_graph(pruned, bg.given(), outputs);
  for (size_t i = 0; i < recorded.size(); ++i) result.grads_[owners[i]] = std::move(recorded[i]);
  return result;
}

}  // namespace ember
