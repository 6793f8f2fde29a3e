// The communicator registry and collectives as external work of a launch sequence: what
// lets a graph node name a communicator and the jit enqueue its collective between kernels.
#include <mutex>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "runtime/collectives.h"

namespace ember::runtime {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<int, std::weak_ptr<Communicator>> by_id;
  int next = 1;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: communicators may outlive statics
  return *r;
}

CollectiveOp to_op(ir::CollectiveReduce r) {
  switch (r) {
    case ir::CollectiveReduce::Sum:
      return CollectiveOp::Sum;
    case ir::CollectiveReduce::Mean:
      return CollectiveOp::Mean;
    case ir::CollectiveReduce::Max:
      return CollectiveOp::Max;
    case ir::CollectiveReduce::Min:
      return CollectiveOp::Min;
    case ir::CollectiveReduce::Prod:
      return CollectiveOp::Prod;
  }
  return CollectiveOp::Sum;
}

class CollectiveWork final : public ExternalWork {
 public:
  CollectiveWork(std::shared_ptr<Communicator> comm, const ir::CollectiveAttrs& a, Array in,
                 Array out)
      : comm_(std::move(comm)),
        call_{a.kind, to_op(a.reduce), a.root},
        in_(std::move(in)),
        out_(std::move(out)) {
    key_ = (static_cast<uint64_t>(a.communicator) << 32) ^ (static_cast<uint64_t>(a.kind) << 24) ^
           (static_cast<uint64_t>(a.reduce) << 16) ^ static_cast<uint64_t>(a.root);
    key_ = key_ * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(in_.type.shape.numel());
  }
  void enqueue(void* stream, bool captured) const override {
    comm_->enqueue(call_, in_, out_, stream, captured);
  }
  void launched() const override { comm_->watch(ir::collective_name(call_.kind)); }
  uint64_t key() const override { return key_; }
  std::shared_ptr<const void> owner() const override { return comm_; }

 private:
  std::shared_ptr<Communicator> comm_;
  CollectiveCall call_;
  Array in_, out_;
  uint64_t key_ = 0;
};

}  // namespace

int register_communicator(const std::shared_ptr<Communicator>& c) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (auto it = r.by_id.begin(); it != r.by_id.end();) {  // forget the gone ones
    it = it->second.expired() ? r.by_id.erase(it) : std::next(it);
  }
  int id = r.next++;
  r.by_id[id] = c;
  return id;
}

std::shared_ptr<Communicator> communicator(int id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.by_id.find(id);
  std::shared_ptr<Communicator> c = it == r.by_id.end() ? nullptr : it->second.lock();
  if (!c) {
    throw Error(absl::StrCat("collectives: communicator ", id,
                             " is gone (its process group was destroyed before the collectives "
                             "recorded on it ran)"));
  }
  return c;
}

std::shared_ptr<const ExternalWork> collective_work(const ir::CollectiveAttrs& attrs, Array in,
                                                    Array out) {
  return std::make_shared<CollectiveWork>(communicator(attrs.communicator), attrs, std::move(in),
                                          std::move(out));
}

}  // namespace ember::runtime
