#include "ir/error.h"
#include "runtime/backend.h"
#include "runtime/cpu/kernels.h"

namespace ember::runtime {

bool Array::is_contiguous() const {
  if (offset != 0) return false;
  auto expected = type.shape.contiguous_strides();
  for (int d = 0; d < type.shape.rank(); ++d) {
    if (type.shape[d] != 1 && strides[d] != expected[d]) return false;
  }
  return true;
}

Array Array::contiguous(std::shared_ptr<Buffer> buffer, TensorType type) {
  Array a;
  a.strides = type.shape.contiguous_strides();
  a.type = std::move(type);
  a.buffer = std::move(buffer);
  return a;
}

std::pair<int64_t, int64_t> Array::span() const {
  int64_t lo = offset, hi = offset;
  for (int d = 0; d < type.shape.rank(); ++d) {
    int64_t reach = (type.shape[d] - 1) * strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi};
}

void gather_span(const Array& a, const std::byte* span_start, void* dst) {
  int64_t elem = static_cast<int64_t>(dtype_size(a.type.dtype));
  auto dense = a.type.shape.contiguous_strides();
  cpu::copy_strided(a.type, span_start + (a.offset - a.span().first) * elem, a.strides.data(), dst,
                    dense.data());
}

Array Backend::allocate(const TensorType&) {
  throw Error(name() + ": allocate is not supported by this backend");
}

std::shared_ptr<Kernel> Backend::load_kernel(const KernelBinary&) {
  throw Error(name() + ": compiled kernels are not supported by this backend");
}

void Backend::launch(const Kernel&, const Launch&) {
  throw Error(name() + ": compiled kernels are not supported by this backend");
}

bool Backend::launch_sequence(uint64_t, std::span<const SequencedLaunch> launches) {
  for (const SequencedLaunch& s : launches) {
    if (s.external) {
      s.external->enqueue(nullptr, false);
    } else {
      launch(*s.kernel, s.launch);
    }
  }
  return false;
}

}  // namespace ember::runtime
