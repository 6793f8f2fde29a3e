// The CPU reference backend: runs primitives one at a time.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/kernels.h"

namespace ember::runtime {
namespace cpu {
namespace {

using ir::OpKind;

class CpuBackend final : public Backend {
 public:
  DeviceKind kind() const override { return DeviceKind::Cpu; }
  std::string name() const override { return "cpu"; }

  Array allocate(const TensorType& type) override { return cpu::allocate(type); }

  Array upload(const TensorType& type, const void* data) override {
    Array a = cpu::allocate(type, /*filled_at_once=*/true);
    size_t bytes = static_cast<size_t>(type.shape.numel()) * dtype_size(type.dtype);
    if (bytes > 0) std::memcpy(raw_ptr(a), data, bytes);  // empty data may be a null pointer
    return a;
  }

  void download(const Array& a, void* dst) override { copy_to_dense(a, dst); }
  const std::byte* host_address(const Array& a) const override { return raw_ptr(a); }

  Array run_primitive(const ir::Node& n, std::span<const Array> in) override {
    const TensorType& t = n.type;
    switch (n.op) {
      case OpKind::Input:
        throw Error("cpu: input nodes are bound by the executor");
      case OpKind::Full:
        return run_full(t, n.get<ir::FullAttrs>().value);
      case OpKind::Iota:
        return run_iota(t, n.get<ir::IotaAttrs>().axis);
      case OpKind::Random:
        return run_random(t, n.get<ir::RandomAttrs>());
      case OpKind::Unary:
        return run_unary(n.get<ir::UnaryAttrs>().fn, in[0], t);
      case OpKind::Binary:
        return run_binary(n.get<ir::BinaryAttrs>().fn, in[0], in[1], t);
      case OpKind::Where:
        return run_where(in[0], in[1], in[2], t);
      case OpKind::Cast:
        return run_cast(in[0], t.dtype);
      case OpKind::Reduce: {
        const auto& r = n.get<ir::ReduceAttrs>();
        return run_reduce(r.fn, r.axis, in[0], t);
      }
      case OpKind::Reshape:
        return view_reshape(in[0], t.shape);
      case OpKind::Permute:
        return view_permute(in[0], n.get<ir::PermuteAttrs>().perm);
      case OpKind::Expand:
        return view_expand(in[0], t.shape);
      case OpKind::Slice:
        return view_slice(in[0], n.get<ir::SliceAttrs>(), t.shape);
      case OpKind::Flip:
        return view_flip(in[0], n.get<ir::FlipAttrs>().axes);
      case OpKind::Pad:
        return run_pad(in[0], n.get<ir::PadAttrs>(), t);
      case OpKind::Concat:
        return run_concat(in, n.get<ir::AxisAttrs>().axis, t);
      case OpKind::Matmul:
        return run_matmul(in[0], in[1], t);
      case OpKind::Gather:
        return run_gather(in[0], n.get<ir::AxisAttrs>().axis, in[1], t);
      case OpKind::ScatterAdd:
        return run_scatter_add(in[0], n.get<ir::AxisAttrs>().axis, in[1], in[2]);
      case OpKind::Sort:
        return run_sort(in[0], n.get<ir::SortAttrs>(), t);
      case OpKind::Conv:
        return run_conv(in[0], in[1], n.get<ir::ConvAttrs>(), t);
      case OpKind::Attention:
        return run_attention(in, n.get<ir::AttentionAttrs>(), t);
      case OpKind::Lstm:
        return run_lstm(in, n.get<ir::LstmAttrs>(), t);
      case OpKind::Collective:
        // Groups of several ranks run on CUDA devices; a group of one records nothing.
        throw Error(absl::StrCat("cpu: ", ir::collective_name(n.get<ir::CollectiveAttrs>().kind),
                                 " between ranks runs on CUDA devices (NCCL)"));
    }
    throw Error(absl::StrCat("cpu: unknown primitive ", ir::op_name(n.op)));
  }

  void sync() override {}
  MemoryStats memory_stats() const override { return cpu_memory_stats(); }
  void reset_peak_memory() override { cpu_reset_peak_memory(); }
};

}  // namespace
}  // namespace cpu

Backend& cpu_backend() {
  static cpu::CpuBackend backend;
  return backend;
}

}  // namespace ember::runtime
