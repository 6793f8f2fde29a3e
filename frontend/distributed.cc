#include "frontend/distributed.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "frontend/detail/dist_bootstrap.h"
#include "frontend/detail/primitives.h"
#include "frontend/detail/stream.h"
#include "ir/error.h"
#include "runtime/collectives.h"

namespace ember::dist {
namespace {

runtime::CollectiveOp to_runtime(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return runtime::CollectiveOp::Sum;
    case ReduceOp::Mean:
      return runtime::CollectiveOp::Mean;
    case ReduceOp::Max:
      return runtime::CollectiveOp::Max;
    case ReduceOp::Min:
      return runtime::CollectiveOp::Min;
    case ReduceOp::Prod:
      return runtime::CollectiveOp::Prod;
  }
  return runtime::CollectiveOp::Sum;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0) throw Error(absl::StrCat("dist: ", name, "='", v, "' is not a count"));
  return static_cast<int>(n);
}

// EMBER_DIST_INIT, else torchrun's MASTER_ADDR and MASTER_PORT.
std::string init_from_env() {
  if (const char* v = std::getenv("EMBER_DIST_INIT"); v != nullptr && *v != '\0') return v;
  const char* addr = std::getenv("MASTER_ADDR");
  const char* port = std::getenv("MASTER_PORT");
  if (addr == nullptr || port == nullptr) {
    throw Error(
        "dist: WORLD_SIZE > 1 but neither EMBER_DIST_INIT (file:PATH or tcp://HOST:PORT) nor "
        "MASTER_ADDR and MASTER_PORT are set");
  }
  // torchrun's agent keeps its own store on MASTER_PORT.
  int p = env_int("MASTER_PORT", 0) + (std::getenv("TORCHELASTIC_RUN_ID") != nullptr ? 1 : 0);
  return absl::StrCat("tcp://", addr, ":", p);
}

void check_group_device(const char* op, const RawTensor& x, const ProcessGroup& g) {
  if (!x.defined()) throw Error(absl::StrCat("dist::", op, ": an undefined tensor"));
  if (x.device() != g.device()) {
    throw Error(absl::StrCat("dist::", op, ": a tensor on ", x.device().to_string(), " for rank ",
                             g.rank(), " on ", g.device().to_string()));
  }
}

// The contiguous array of `x`, computed (its pending work enqueued, not waited for). A strided
// view of a computed tensor takes a host round trip: views reach a collective rarely (gradients
// and buckets are computed contiguously).
runtime::Array contiguous_array(const RawTensor& x) {
  auto& stream = detail::Stream::of(x.device());
  runtime::Array a = stream.materialize(x);
  if (a.is_contiguous()) return a;
  TensorData host = x.to_data();
  return detail::backend_for(x.device()).upload(a.type, host.bytes().data());
}

RawTensor wrap(const Device& device, runtime::Array a) {
  return detail::Stream::of(device).wrap(std::move(a));
}

runtime::Array allocate(const Device& device, TensorType type) {
  return detail::backend_for(device).allocate(type);
}

}  // namespace

// What the collectives below read of a group besides its public face.
struct GroupAccess {
  static int lazy_id(const ProcessGroup& g) { return g.lazy_id_; }
};

namespace {

ir::CollectiveReduce to_ir(ReduceOp op) {
  return static_cast<ir::CollectiveReduce>(static_cast<int>(to_runtime(op)));
}

// The collective recorded as an op of the group's device stream (groups of one process per GPU).
RawTensor record_collective(const RawTensor& x, const ProcessGroup& group, ir::CollectiveKind kind,
                            ReduceOp op, int root) {
  ir::CollectiveAttrs a;
  a.kind = kind;
  a.reduce = to_ir(op);
  a.root = root;
  a.communicator = GroupAccess::lazy_id(group);
  a.ranks = group.size();
  // NCCL reads contiguous memory: a computed strided view is copied first (a pending value is
  // stored contiguously by the kernel computing it).
  const bool computed_strided = x.value()->array && !x.value()->array->is_contiguous();
  RawTensor out = prim::collective(computed_strided ? wrap(x.device(), contiguous_array(x)) : x, a);
  // Every rank runs every collective it records, in recorded order, even one whose result this
  // rank drops (a mean only rank 0 logs): pruning it would leave the others waiting.
  detail::Stream::of(x.device()).keep_until_flushed(out);
  return out;
}

}  // namespace

bool available(std::string* why) { return runtime::collectives_available(why); }

ProcessGroup ProcessGroup::single(const Device& device) { return ProcessGroup(device, 0, 1, {}); }

ProcessGroup ProcessGroup::join(const Device& device, int rank, int world_size,
                                const std::string& init) {
  if (world_size < 1 || rank < 0 || rank >= world_size)
    throw Error(absl::StrCat("dist: rank ", rank, " of a group of ", world_size));
  if (world_size == 1) return single(device);
  if (device.type() != DeviceType::Cuda) {
    throw Error(absl::StrCat("dist: groups of several ranks run on CUDA devices (NCCL); rank ",
                             rank, " asked for ", device.to_string()));
  }
  auto exchange = detail::id_exchange(init, world_size);
  runtime::CommId id =
      exchange->share(rank, rank == 0 ? runtime::new_comm_id() : runtime::CommId{});
  std::shared_ptr<runtime::Communicator> comm =
      runtime::join_group(detail::backend_for(device), world_size, rank, id);
  exchange->done(rank);
  int lazy_id = runtime::register_communicator(comm);
  return ProcessGroup(device, rank, world_size, std::move(comm), lazy_id);
}

ProcessGroup ProcessGroup::from_env() {
  int world = env_int("WORLD_SIZE", 1);
  if (world <= 1) return single(Device::default_device());
  int rank = env_int("RANK", -1), local = env_int("LOCAL_RANK", rank);
  if (rank < 0) throw Error("dist: WORLD_SIZE is set but RANK is not");
  return join(Device::cuda(local), rank, world, init_from_env());
}

std::vector<ProcessGroup> ProcessGroup::local(const std::vector<Device>& devices) {
  if (devices.empty()) throw Error("dist: ProcessGroup::local of no devices");
  if (devices.size() == 1) return {single(devices[0])};
  std::vector<runtime::Backend*> backends;
  for (const Device& d : devices) {
    if (d.type() != DeviceType::Cuda)
      throw Error("dist: a local group of several devices takes CUDA devices, not " +
                  d.to_string());
    backends.push_back(&detail::backend_for(d));
  }
  auto comms = runtime::local_group(backends);
  std::vector<ProcessGroup> out;
  for (size_t i = 0; i < devices.size(); ++i) {
    out.push_back(ProcessGroup(devices[i], static_cast<int>(i), static_cast<int>(devices.size()),
                               std::move(comms[i])));
  }
  return out;
}

RawTensor all_reduce(const RawTensor& x, ReduceOp op, const ProcessGroup& group) {
  if (GroupAccess::lazy_id(group) != 0) {
    check_group_device("all_reduce", x, group);
    return record_collective(x, group, ir::CollectiveKind::AllReduce, op, 0);
  }
  return all_reduce(std::vector<RawTensor>{x}, op, std::vector<ProcessGroup>{group})[0];
}

RawTensor broadcast(const RawTensor& x, int root, const ProcessGroup& group) {
  if (GroupAccess::lazy_id(group) != 0) {
    check_group_device("broadcast", x, group);
    if (root < 0 || root >= group.size())
      throw Error(absl::StrCat("dist::broadcast: root ", root, " of ", group.size(), " ranks"));
    return record_collective(x, group, ir::CollectiveKind::Broadcast, ReduceOp::Sum, root);
  }
  return broadcast(std::vector<RawTensor>{x}, root, std::vector<ProcessGroup>{group})[0];
}

RawTensor all_gather(const RawTensor& x, const ProcessGroup& group) {
  check_group_device("all_gather", x, group);
  if (x.rank() < 1) throw Error("dist::all_gather: a tensor of rank 0");
  if (group.size() == 1) return x;
  if (GroupAccess::lazy_id(group) != 0)
    return record_collective(x, group, ir::CollectiveKind::AllGather, ReduceOp::Sum, 0);
  runtime::Array in = contiguous_array(x);
  TensorType type = in.type;
  type.shape[0] *= group.size();
  runtime::Array out = allocate(group.device(), type);
  group.communicator()->all_gather(in, out);
  return wrap(group.device(), std::move(out));
}

RawTensor reduce_scatter(const RawTensor& x, ReduceOp op, const ProcessGroup& group) {
  check_group_device("reduce_scatter", x, group);
  if (x.rank() < 1 || x.shape()[0] % group.size() != 0) {
    throw Error(absl::StrCat("dist::reduce_scatter: dim 0 of ", x.shape().to_string(),
                             " is not divisible by the group's ", group.size(), " ranks"));
  }
  if (group.size() == 1) return x;
  if (GroupAccess::lazy_id(group) != 0)
    return record_collective(x, group, ir::CollectiveKind::ReduceScatter, op, 0);
  runtime::Array in = contiguous_array(x);
  TensorType type = in.type;
  type.shape[0] /= group.size();
  runtime::Array out = allocate(group.device(), type);
  group.communicator()->reduce_scatter(in, out, to_runtime(op));
  return wrap(group.device(), std::move(out));
}

namespace {

// One same-shaped output per input, each group's collective `call(comm, in, out)` issued in one
// group call (what a process driving several devices needs); a group of one is the identity.
template <class Call>
std::vector<RawTensor> each_group(const char* op, const std::vector<RawTensor>& xs,
                                  const std::vector<ProcessGroup>& groups, Call&& call) {
  if (xs.size() != groups.size())
    throw Error(
        absl::StrCat("dist::", op, ": ", xs.size(), " tensors for ", groups.size(), " groups"));
  for (size_t i = 0; i < xs.size(); ++i) check_group_device(op, xs[i], groups[i]);
  if (groups.size() == 1 && groups[0].size() == 1) return xs;
  // Collectives recorded earlier on these devices go first: issued now, this one would overtake
  // them on this rank only.
  for (const ProcessGroup& g : groups) {
    if (GroupAccess::lazy_id(g) != 0) detail::Stream::of(g.device()).flush();
  }
  std::vector<runtime::Array> ins, outs;
  for (size_t i = 0; i < xs.size(); ++i) {
    ins.push_back(contiguous_array(xs[i]));
    outs.push_back(allocate(groups[i].device(), ins.back().type));
  }
  runtime::grouped([&] {
    for (size_t i = 0; i < xs.size(); ++i) call(*groups[i].communicator(), ins[i], outs[i]);
  });
  std::vector<RawTensor> result;
  for (size_t i = 0; i < xs.size(); ++i) result.push_back(wrap(groups[i].device(), outs[i]));
  return result;
}

}  // namespace

std::vector<RawTensor> all_reduce(const std::vector<RawTensor>& xs, ReduceOp op,
                                  const std::vector<ProcessGroup>& groups) {
  return each_group("all_reduce", xs, groups, [&](runtime::Communicator& c, auto& in, auto& out) {
    c.all_reduce(in, out, to_runtime(op));
  });
}

std::vector<RawTensor> broadcast(const std::vector<RawTensor>& xs, int root,
                                 const std::vector<ProcessGroup>& groups) {
  if (!groups.empty() && (root < 0 || root >= groups[0].size()))
    throw Error(absl::StrCat("dist::broadcast: root ", root, " of ", groups[0].size(), " ranks"));
  return each_group("broadcast", xs, groups, [&](runtime::Communicator& c, auto& in, auto& out) {
    c.broadcast(in, out, root);
  });
}

}  // namespace ember::dist
