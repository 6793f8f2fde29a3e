// Collectives between CUDA devices through NCCL, on each device's stream. A watchdog thread per
// communicator polls NCCL's asynchronous error and the age of the oldest unfinished collective:
// a rank that died or stalls would otherwise leave the others waiting in a kernel forever, so
// on either it aborts the communicator and ends the process with a message (as PyTorch's
// NCCL watchdog does by default).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "runtime/collectives.h"
#include "runtime/cuda/cuda_api.h"
#include "runtime/cuda/cuda_native.h"
#include "runtime/cuda/nccl_api.h"

namespace ember::runtime {
namespace cuda {
namespace {

const Nccl& require_nccl() {
  std::string why;
  const Nccl* n = nccl(&why);
  if (n == nullptr) throw Error("collectives: NCCL unavailable: " + why);
  return *n;
}

ncclDataType_t nccl_type(DType t, const char* op) {
  switch (t) {
    case DType::F32:
      return ncclFloat32;
    case DType::F16:
      return ncclFloat16;
    case DType::BF16:
      return ncclBfloat16;
    case DType::F64:
      return ncclFloat64;
    case DType::I32:
      return ncclInt32;
    case DType::I64:
      return ncclInt64;
    case DType::U8:
    case DType::Bool:
      return ncclUint8;
  }
  throw Error(absl::StrCat("collectives: ", op, ": unsupported dtype ", dtype_name(t)));
}

ncclRedOp_t nccl_op(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::Sum:
      return ncclSum;
    case CollectiveOp::Mean:
      return ncclAvg;
    case CollectiveOp::Max:
      return ncclMax;
    case CollectiveOp::Min:
      return ncclMin;
    case CollectiveOp::Prod:
      return ncclProd;
  }
  return ncclSum;
}

// Group calls open on this thread (grouped()), and what waits for the outermost one's end.
thread_local int t_group_depth = 0;
thread_local std::vector<std::function<void()>> t_after_group;

// Seconds a collective may stay unfinished before the group is declared dead.
double timeout_seconds() {
  const char* env = std::getenv("EMBER_NCCL_TIMEOUT_S");
  if (env != nullptr && *env != '\0') {
    char* end = nullptr;
    double v = std::strtod(env, &end);
    if (end != env && v > 0) return v;
  }
  return 600;
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(Backend& device, ncclComm_t comm, int size, int rank)
      : device_(device),
        native_(native_device(device)),
        comm_(comm),
        size_(size),
        rank_(rank),
        timeout_(timeout_seconds()),
        watchdog_([this](std::stop_token st) { watch(st); }) {}

  ~NcclCommunicator() override {
    watchdog_.request_stop();
    wake_.notify_all();
    watchdog_.join();
    make_current(native_);
    driver()->cuStreamSynchronize(native_.stream);
    for (auto& p : pending_) driver()->cuEventDestroy(p.event);
    for (CUevent e : spare_) driver()->cuEventDestroy(e);
    require_nccl().ncclCommDestroy(comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Backend& device() const override { return device_; }

  void enqueue(const CollectiveCall& call, const Array& in, const Array& out, void* stream,
               bool captured) override {
    const char* what = ir::collective_name(call.kind);
    CUstream st = stream != nullptr ? static_cast<CUstream>(stream) : native_.stream;
    const bool reduces = call.kind == ir::CollectiveKind::AllReduce ||
                         call.kind == ir::CollectiveKind::ReduceScatter;
    if (reduces && in.type.dtype == DType::Bool)
      throw Error(absl::StrCat("collectives: ", what, " of a bool tensor"));
    ncclDataType_t type = nccl_type(in.type.dtype, what);
    switch (call.kind) {
      case ir::CollectiveKind::AllReduce:
        check_arrays(what, in, out, 1, 1);
        return submit(what, captured, [&](const Nccl& n) {
          return n.ncclAllReduce(ptr(in), ptr(out), count(in), type, nccl_op(call.op), comm_, st);
        });
      case ir::CollectiveKind::Broadcast:
        check_arrays(what, in, out, 1, 1);
        if (call.root < 0 || call.root >= size_)
          throw Error(absl::StrCat("collectives: broadcast from rank ", call.root, " of ", size_));
        return submit(what, captured, [&](const Nccl& n) {
          return n.ncclBroadcast(ptr(in), ptr(out), count(in), type, call.root, comm_, st);
        });
      case ir::CollectiveKind::AllGather:
        check_arrays(what, in, out, 1, size_);
        return submit(what, captured, [&](const Nccl& n) {
          return n.ncclAllGather(ptr(in), ptr(out), count(in), type, comm_, st);
        });
      case ir::CollectiveKind::ReduceScatter:
        check_arrays(what, in, out, size_, 1);
        return submit(what, captured, [&](const Nccl& n) {
          return n.ncclReduceScatter(ptr(in), ptr(out), count(out), type, nccl_op(call.op), comm_,
                                     st);
        });
    }
  }

  void watch(const char* what) override { watch_from_here(what); }

 private:
  struct Pending {
    CUevent event;
    std::chrono::steady_clock::time_point since;
    const char* what;
  };

  static void* ptr(const Array& a) { return reinterpret_cast<void*>(device_pointer(a)); }
  static size_t count(const Array& a) { return static_cast<size_t>(a.type.shape.numel()); }

  // in and out: contiguous, this device's, one dtype, out's elements = in's * out_blocks /
  // in_blocks.
  void check_arrays(const char* op, const Array& in, const Array& out, int in_blocks,
                    int out_blocks) const {
    auto where = [&] { return absl::StrCat("collectives: ", op, " on ", device_.name(), ": "); };
    if (!in.is_contiguous() || !out.is_contiguous())
      throw Error(where() + "arrays must be contiguous");
    if (in.type.dtype != out.type.dtype) throw Error(where() + "input and output dtypes differ");
    if (in.type.shape.numel() * out_blocks != out.type.shape.numel() * in_blocks) {
      throw Error(absl::StrCat(where(), "output of ", out.type.shape.numel(),
                               " elements for an input of ", in.type.shape.numel(), " (", size_,
                               " ranks)"));
    }
  }

  // `captured`: into a graph being captured, whose launch is watched instead (an event recorded
  // on a capturing stream cannot be waited for).
  template <class F>
  void submit(const char* what, bool captured, F&& call) {
    const Nccl& n = require_nccl();
    if (failed_.load()) throw Error(absl::StrCat("collectives: ", what, ": the group has failed"));
    make_current(native_);
    check_nccl(call(n), absl::StrCat(what, " (rank ", rank_, " of ", size_, ")"));
    if (captured) return;
    // Inside a group NCCL enqueues at the group's end: the watchdog's event follows it there.
    if (t_group_depth > 0) {
      t_after_group.push_back([this, what] { watch_from_here(what); });
    } else {
      watch_from_here(what);
    }
  }

  // Records an event after the work on the stream so far, for the watchdog to time.
  void watch_from_here(const char* what) {
    make_current(native_);
    CUevent e = take_event();
    check(driver()->cuEventRecord(e, native_.stream), "cuEventRecord");
    std::lock_guard lock(mutex_);
    pending_.push_back({e, std::chrono::steady_clock::now(), what});
    wake_.notify_all();
  }

  CUevent take_event() {
    {
      std::lock_guard lock(mutex_);
      if (!spare_.empty()) {
        CUevent e = spare_.back();
        spare_.pop_back();
        return e;
      }
    }
    CUevent e = nullptr;
    check(driver()->cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    return e;
  }

  void watch(std::stop_token st) {
    make_current(native_);
    const Nccl& n = require_nccl();
    std::unique_lock lock(mutex_);
    while (!st.stop_requested()) {
      wake_.wait_for(lock, std::chrono::milliseconds(100));
      ncclResult_t async = ncclSuccess;
      if (n.ncclCommGetAsyncError(comm_, &async) == ncclSuccess && async != ncclSuccess &&
          async != ncclInProgress) {
        fail(absl::StrCat("NCCL reported: ", n.ncclGetErrorString(async)));
      }
      while (!pending_.empty() && driver()->cuEventQuery(pending_.front().event) == CUDA_SUCCESS) {
        spare_.push_back(pending_.front().event);
        pending_.pop_front();
      }
      if (!pending_.empty()) {
        double age =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - pending_.front().since)
                .count();
        if (age > timeout_) {
          fail(absl::StrCat(pending_.front().what, " unfinished after ", age,
                            " s (EMBER_NCCL_TIMEOUT_S=", timeout_,
                            "): another rank died or stalled"));
        }
      }
    }
  }

  [[noreturn]] void fail(const std::string& reason) {
    failed_ = true;
    std::fprintf(stderr,
                 "ember: collectives: rank %d of %d on %s: %s; aborting the group and exiting\n",
                 rank_, size_, device_.name().c_str(), reason.c_str());
    std::fflush(nullptr);
    abort_within(std::chrono::seconds(10));
    std::_Exit(EXIT_FAILURE);
  }

  // ncclCommAbort stops this rank's NCCL kernels so the process can end cleanly, but it may block
  // on a device kept busy by a captured graph waiting for the dead peer (seen on 2x H100: the rank
  // hung past the grace period). Exiting ends the context anyway, so the abort gets a bounded time.
  void abort_within(std::chrono::seconds limit) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread([comm = comm_, done] {
      require_nccl().ncclCommAbort(comm);
      done->store(true);
    }).detach();
    auto until = std::chrono::steady_clock::now() + limit;
    while (!done->load() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!done->load())
      std::fprintf(stderr,
                   "ember: collectives: rank %d: NCCL abort still blocked after %llds; "
                   "exiting without it\n",
                   rank_, static_cast<long long>(limit.count()));
  }

  Backend& device_;
  NativeDevice native_;
  ncclComm_t comm_;
  int size_, rank_;
  double timeout_;
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> pending_;
  std::vector<CUevent> spare_;
  std::jthread watchdog_;  // last: starts after every member it reads
};

}  // namespace
}  // namespace cuda

bool collectives_available(std::string* why) {
  if (cuda::nccl(why) == nullptr) return false;
  if (cuda::driver(why) == nullptr) return false;
  return true;
}

std::string collectives_version() {
  const cuda::Nccl* n = cuda::nccl();
  if (n == nullptr) return "none";
  int v = 0;
  n->ncclGetVersion(&v);
  // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
  return absl::StrCat(v / 10000, ".", v / 100 % 100, ".", v % 100);
}

CommId new_comm_id() {
  const cuda::Nccl& n = cuda::require_nccl();
  ncclUniqueId id;
  cuda::check_nccl(n.ncclGetUniqueId(&id), "ncclGetUniqueId");
  CommId out;
  static_assert(sizeof(id.internal) == sizeof(out.bytes));
  std::copy(std::begin(id.internal), std::end(id.internal), out.bytes.begin());
  return out;
}

std::unique_ptr<Communicator> join_group(Backend& device, int size, int rank, const CommId& id) {
  const cuda::Nccl& n = cuda::require_nccl();
  if (size < 1 || rank < 0 || rank >= size)
    throw Error(absl::StrCat("collectives: rank ", rank, " of a group of ", size));
  cuda::NativeDevice native = cuda::native_device(device);
  cuda::make_current(native);
  ncclUniqueId nid;
  std::copy(id.bytes.begin(), id.bytes.end(), std::begin(nid.internal));
  ncclComm_t comm = nullptr;
  cuda::check_nccl(
      n.ncclCommInitRank(&comm, size, nid, rank),
      absl::StrCat("ncclCommInitRank (rank ", rank, " of ", size, " on ", device.name(), ")"));
  return std::make_unique<cuda::NcclCommunicator>(device, comm, size, rank);
}

std::vector<std::unique_ptr<Communicator>> local_group(std::span<Backend* const> devices) {
  const cuda::Nccl& n = cuda::require_nccl();
  std::vector<int> ordinals;
  for (Backend* b : devices) ordinals.push_back(cuda::native_device(*b).ordinal);
  std::vector<ncclComm_t> comms(devices.size());
  cuda::check_nccl(n.ncclCommInitAll(comms.data(), static_cast<int>(comms.size()), ordinals.data()),
                   absl::StrCat("ncclCommInitAll (", devices.size(), " devices)"));
  std::vector<std::unique_ptr<Communicator>> out;
  for (size_t i = 0; i < devices.size(); ++i) {
    out.push_back(std::make_unique<cuda::NcclCommunicator>(
        *devices[i], comms[i], static_cast<int>(devices.size()), static_cast<int>(i)));
  }
  return out;
}

void grouped(const std::function<void()>& calls) {
  const cuda::Nccl& n = cuda::require_nccl();
  cuda::check_nccl(n.ncclGroupStart(), "ncclGroupStart");
  ++cuda::t_group_depth;
  try {
    calls();
  } catch (...) {
    --cuda::t_group_depth;
    n.ncclGroupEnd();
    if (cuda::t_group_depth == 0) cuda::t_after_group.clear();
    throw;
  }
  --cuda::t_group_depth;
  cuda::check_nccl(n.ncclGroupEnd(), "ncclGroupEnd");
  if (cuda::t_group_depth == 0) {
    auto after = std::move(cuda::t_after_group);
    cuda::t_after_group.clear();
    for (auto& f : after) f();
  }
}

}  // namespace ember::runtime
