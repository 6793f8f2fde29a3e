// Primitives without inputs: constant fill, iota, counter-based random numbers.
#include <algorithm>

#include "ir/philox.h"
#include "runtime/cpu/convert.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/parallel.h"
#include "runtime/cpu/strided.h"

namespace ember::runtime::cpu {

Array run_full(const TensorType& out_type, ir::Scalar value) {
  Array out = allocate(out_type);
  dispatch_dtype(out_type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = value.is_int ? convert<T>(value.i) : convert<T>(value.f);
    T* p = base_ptr<T>(out);
    std::fill(p, p + out_type.shape.numel(), v);
  });
  return out;
}

Array run_iota(const TensorType& out_type, int axis) {
  Array out = allocate(out_type);
  // Walk the output with a stride vector that is 1 along `axis` and 0 elsewhere: the "offset"
  // of that operand is then the index along the axis.
  std::vector<int64_t> axis_strides(out_type.shape.rank(), 0);
  axis_strides[axis] = 1;
  dispatch_dtype(out_type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = base_ptr<T>(out);
    for_each_row<2>(out_type.shape, {out.strides.data(), axis_strides.data()},
                    [&](auto off, int64_t n, auto st) {
                      for (int64_t i = 0; i < n; ++i) {
                        p[off[0] + i * st[0]] = convert<T>(off[1] + i * st[1]);
                      }
                    });
  });
  return out;
}

Array run_random(const TensorType& out_type, const ir::RandomAttrs& a) {
  Array out = allocate(out_type);
  int64_t n = out_type.shape.numel();
  dispatch_dtype(out_type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = base_ptr<T>(out);
    // Counter-based: every element is independent, so large draws (dropout masks, recomputed in
    // the backward too) split over the cores.
    constexpr int64_t kChunk = 1 << 15;
    parallel_for((n + kChunk - 1) / kChunk, [&](int64_t c) {
      for (int64_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
        double v = ir::philox_sample(static_cast<int>(a.dist), a.a, a.b,
                                     a.offset + static_cast<uint64_t>(i), a.seed);
        p[i] = convert<T>(v);
      }
    });
  });
  return out;
}

}  // namespace ember::runtime::cpu
