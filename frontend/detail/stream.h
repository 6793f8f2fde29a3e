#pragma once
// The lazy stream of one device: ops append primitives to a pending graph; a sync point flushes
// it through the jit. Internal to the frontend.
#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "frontend/raw_tensor.h"
#include "ir/builder.h"
#include "jit/exec/executor.h"
#include "runtime/backend.h"
#include "runtime/registry.h"

namespace ember::detail {

struct LazyValue {
  // User-provided, so that making one (once per recorded op) does not zero the whole object.
  LazyValue(const Device& d, const TensorType& t, ir::ValueId n) : device(d), type(t), node(n) {}
  LazyValue(const Device& d, runtime::Array a) : device(d), type(a.type), array(std::move(a)) {}

  Device device;
  TensorType type;
  std::optional<runtime::Array> array;  // set once computed
  ir::ValueId node = -1;                // while pending: the node defining it
  std::string error;                    // set when computing it failed
};

// The runtime's kind of backend for a device type.
runtime::BackendKind backend_kind(DeviceType type);
runtime::Backend& backend_for(const Device& device);

class Stream {
 public:
  static Stream& of(const Device& device);
  ~Stream() {
    for (const RecentFlush& r : recent_) jit::release_stream(r.replay_id);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Records one or more primitives: `build(builder, bind)` appends them and returns the result's
  // value id; `bind(t)` gives the id of an input tensor. Throws (recording nothing live) when
  // the builder rejects an op.
  template <class F>
  RawTensor record(F&& build) {
    std::lock_guard lock(mutex_);
    ir::Builder b(graph_);
    auto bind = [this](const RawTensor& t) { return bind_locked(t); };
    return finish_record(build(b, bind));
  }

  // Inside `record`: the node of a scalar operand (an all-ones shape of `rank`), shared by the
  // ops of this flush that use the same scalar: an eager step of tensor-scalar ops records one
  // node per distinct constant instead of one per op.
  ir::ValueId scalar_locked(ir::Builder& b, int rank, DType dtype, const ir::Scalar& value);

  // Records a whole graph (a backward pass): its Input nodes bind `inputs[slot]`, the other nodes
  // are replayed; returns a tensor per value of `outputs`.
  std::vector<RawTensor> record_graph(const ir::Graph& g, const std::vector<RawTensor>& inputs,
                                      const std::vector<ir::ValueId>& outputs);
  // One step of a recipe: a primitive and the earlier steps it reads, or (an Input node) a
  // materialized tensor the recipe keeps.
  struct RecipeStep {
    ir::Node node;
    std::vector<int> args;
    RawTensor kept;
  };
  // How backward can remake `t` instead of keeping it: when `t` is pending and computed by a few
  // cheap ops (sources, elementwise, casts, views) from sources and materialized tensors no
  // larger than `t`, those steps, the last one `t`'s own. A cross-entropy's class mask is then
  // recomputed from the targets inside the backward kernel instead of being stored by the
  // forward one.
  std::optional<std::vector<RecipeStep>> recipe(const RawTensor& t);

  // Wraps an already computed array.
  RawTensor wrap(runtime::Array array);
  // Has the next flush compute `t` (pending on this stream) even when no tensor refers to it
  // any more: a collective, which every rank must run whether or not it reads the result
  // (frontend/distributed.cc).
  void keep_until_flushed(const RawTensor& t);
  // Computes every pending value that a live tensor still refers to.
  void flush();
  // Flushes if `t` is pending, then returns its array (throws its error if computing it failed).
  const runtime::Array& materialize(const RawTensor& t);
  // Whether `t` is computed without error, read under the stream's lock (a flush on another
  // thread may be setting it): what backward() reads instead of recomputing.
  bool computed(const RawTensor& t);

  const Device& device() const { return device_; }
  int pending_ops() const { return graph_.size(); }
  // Primitives recorded since the last flush, which adds them to jit::counters() (one atomic
  // add per flush instead of one per op); reset_stats zeroes them with the counters.
  int64_t unflushed_ops();
  void reset_unflushed_ops();

 private:
  explicit Stream(Device d) : device_(d) {
    for (RecentFlush& r : recent_) r.replay_id = jit::new_stream_id();
  }
  ir::ValueId bind_locked(const RawTensor& t);
  // The recent flush that the pending graph with `outputs` repeats node for node (see
  // jit::FlushHints), or -1; `scalars_same`: and every scalar too.
  int find_repeat(const std::vector<ir::ValueId>& outputs, bool& scalars_same) const;
  // The recent flush to replace with one that repeats none: an empty one, else the least
  // recently flushed.
  int least_recent() const;
  RawTensor finish_record(ir::ValueId id);
  RawTensor pending_value(ir::ValueId id);
  void flush_locked();

  Device device_;
  std::recursive_mutex mutex_;
  ir::Graph graph_;
  std::vector<runtime::Array> inputs_;             // by Input slot
  std::vector<std::shared_ptr<LazyValue>> bound_;  // keeps bound inputs alive
  absl::flat_hash_map<const LazyValue*, ir::ValueId> bound_ids_;
  std::vector<std::weak_ptr<LazyValue>> pending_;
  std::vector<std::shared_ptr<LazyValue>> side_effects_;  // keep_until_flushed
  int64_t unflushed_ops_ = 0;
  // When the last flush ended (EMBER_LOG=flush reports the recording time since).
  std::optional<std::chrono::steady_clock::time_point> last_flush_end_;
  // The last few distinct flushes' graphs and outputs, each with its own replay slot in the jit
  // (what a flush that repeats it reuses). A training step flushes its forward, backward and
  // optimizer update in turn: with only the last flush remembered, none of them would replay.
  struct RecentFlush {
    ir::Graph graph;
    std::vector<ir::ValueId> outputs;
    uint64_t replay_id = 0;
    uint64_t flushed_at = 0;  // flush_count_ when last flushed; 0: never
  };
  static constexpr int kRecentFlushes = 4;
  std::array<RecentFlush, kRecentFlushes> recent_;
  uint64_t flush_count_ = 0;
  // The scalar nodes of the pending graph (scalar_locked), the last few distinct ones.
  struct ScalarNode {
    ir::Scalar value;
    DType dtype;
    int rank;
    ir::ValueId id;
  };
  std::array<ScalarNode, 8> scalar_nodes_;
  int scalar_nodes_used_ = 0, scalar_nodes_next_ = 0;
};

// Pending-stream limit: a flush starts once this many primitives wait (EMBER_MAX_PENDING_OPS).
int max_pending_ops();

}  // namespace ember::detail
