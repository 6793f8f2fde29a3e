// Grouped N-d convolution on the CPU: per sample and group, the input patches are unfolded into a
// [C/groups * K, OS] matrix (im2col) and multiplied with the group's [O/groups, C/groups * K]
// weight (OpenBLAS where the build has it, else Eigen). Samples run in parallel. f16/bf16
// compute in f32.
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/cpu/blas.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/parallel.h"

namespace ember::runtime::cpu {
namespace {

// Up to three spatial dims, missing leading ones of size 1.
struct Geometry {
  std::array<int64_t, 3> in{1, 1, 1}, k{1, 1, 1}, out{1, 1, 1}, stride{1, 1, 1}, pad{0, 0, 0},
      dil{1, 1, 1};
  int64_t in_numel() const { return in[0] * in[1] * in[2]; }
  int64_t k_numel() const { return k[0] * k[1] * k[2]; }
  int64_t out_numel() const { return out[0] * out[1] * out[2]; }
};

Geometry geometry(const Shape& xs, const Shape& ws, const Shape& os, const ir::ConvAttrs& a) {
  Geometry g;
  const int sr = xs.rank() - 2, lead = 3 - sr;
  for (int d = 0; d < sr; ++d) {
    g.in[lead + d] = xs[d + 2];
    g.k[lead + d] = ws[d + 2];
    g.out[lead + d] = os[d + 2];
    g.stride[lead + d] = a.stride[d];
    g.pad[lead + d] = a.pad_before[d];
    g.dil[lead + d] = a.dilation[d];
  }
  return g;
}

// The outputs o in [0, out) whose input position o * stride - pad + offset lies in [0, size).
std::pair<int64_t, int64_t> valid_range(int64_t out, int64_t size, int64_t stride, int64_t pad,
                                        int64_t offset) {
  const int64_t shift = offset - pad;  // position = o * stride + shift
  auto ceil_div = [](int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); };
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  const int64_t lo = std::clamp<int64_t>(ceil_div(-shift, stride), 0, out);
  const int64_t hi = std::clamp<int64_t>(floor_div(size - 1 - shift, stride) + 1, lo, out);
  return {lo, hi};
}

// col[(c, k0, k1, k2), (o0, o1, o2)] = x[c, o * stride - pad + k * dil], 0 outside. The
// innermost dim is copied as one strided run between its zero borders.
template <class T>
void im2col(const T* x, int64_t channels, const Geometry& g, T* col) {
  for (int64_t c = 0; c < channels; ++c) {
    const T* xc = x + c * g.in_numel();
    for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
        for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
          const auto [lo, hi] =
              valid_range(g.out[2], g.in[2], g.stride[2], g.pad[2], k2 * g.dil[2]);
          const int64_t first = lo * g.stride[2] - g.pad[2] + k2 * g.dil[2];
          for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
            const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dil[0];
            for (int64_t o1 = 0; o1 < g.out[1]; ++o1, col += g.out[2]) {
              const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dil[1];
              if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1] || lo == hi) {
                std::fill(col, col + g.out[2], T(0));
                continue;
              }
              const T* src = xc + (i0 * g.in[1] + i1) * g.in[2] + first;
              std::fill(col, col + lo, T(0));
              if (g.stride[2] == 1) {
                std::copy(src, src + (hi - lo), col + lo);
              } else {
                for (int64_t o2 = lo; o2 < hi; ++o2, src += g.stride[2]) col[o2] = *src;
              }
              std::fill(col + hi, col + g.out[2], T(0));
            }
          }
        }
  }
}

// The transpose of im2col, for kernels wider than the output (a weight gradient's convolution,
// whose kernel is the output gradient): row[(o0, o1, o2), (c, k0, k1, k2)] = x[c, o * stride -
// pad + k * dil], 0 outside. A kernel row is one run of the input (unit dilation), copied whole,
// where im2col would copy an output row's few elements per kernel offset.
template <class T>
void im2row(const T* x, int64_t channels, const Geometry& g, T* rows) {
  const int64_t width = channels * g.k_numel();
  for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
    for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
      for (int64_t o2 = 0; o2 < g.out[2]; ++o2, rows += width) {
        // Kernel offsets k2 whose input position o2 * stride - pad + k2 * dil is inside.
        const auto [lo, hi] =
            valid_range(g.k[2], g.in[2], g.dil[2], -o2 * g.stride[2] + g.pad[2], 0);
        const int64_t first = o2 * g.stride[2] - g.pad[2] + lo * g.dil[2];
        T* dst = rows;
        for (int64_t c = 0; c < channels; ++c) {
          const T* xc = x + c * g.in_numel();
          for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
            const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dil[0];
            for (int64_t k1 = 0; k1 < g.k[1]; ++k1, dst += g.k[2]) {
              const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dil[1];
              if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1] || lo == hi) {
                std::fill(dst, dst + g.k[2], T(0));
                continue;
              }
              const T* src = xc + (i0 * g.in[1] + i1) * g.in[2] + first;
              std::fill(dst, dst + lo, T(0));
              if (g.dil[2] == 1) {
                std::copy(src, src + (hi - lo), dst + lo);
              } else {
                for (int64_t k2 = lo; k2 < hi; ++k2, src += g.dil[2]) dst[k2] = *src;
              }
              std::fill(dst + hi, dst + g.k[2], T(0));
            }
          }
        }
      }
}

// Direct convolution of one (sample, group): every (output channel, input channel, kernel
// offset) adds a weight times a shifted input row to each output row, a loop the compiler
// vectorises. For few channels and wide outputs, where unfolding and packing the GEMM's operands
// cost more than the products (the guide's 1->8 and 8->16 layers).
template <class T>
void conv_direct(const T* x, const T* w, T* y, int64_t cg, int64_t og, const Geometry& g) {
  const int64_t on = g.out_numel(), taps = g.k_numel();
  std::fill(y, y + og * on, T(0));
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
    const auto [lo0, hi0] = valid_range(g.out[0], g.in[0], g.stride[0], g.pad[0], k0 * g.dil[0]);
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
      const auto [lo1, hi1] = valid_range(g.out[1], g.in[1], g.stride[1], g.pad[1], k1 * g.dil[1]);
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        const auto [lo2, hi2] =
            valid_range(g.out[2], g.in[2], g.stride[2], g.pad[2], k2 * g.dil[2]);
        const int64_t tap = (k0 * g.k[1] + k1) * g.k[2] + k2, n2 = hi2 - lo2;
        for (int64_t o = 0; o < og; ++o) {
          for (int64_t c = 0; c < cg; ++c) {
            const T wv = w[(o * cg + c) * taps + tap];
            const T* xc = x + c * g.in_numel();
            for (int64_t o0 = lo0; o0 < hi0; ++o0) {
              const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dil[0];
              for (int64_t o1 = lo1; o1 < hi1; ++o1) {
                const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dil[1];
                const T* src = xc + (i0 * g.in[1] + i1) * g.in[2] + lo2 * g.stride[2] - g.pad[2] +
                               k2 * g.dil[2];
                T* dst = y + o * on + (o0 * g.out[1] + o1) * g.out[2] + lo2;
                if (g.stride[2] == 1) {
                  for (int64_t j = 0; j < n2; ++j) dst[j] += wv * src[j];
                } else {
                  for (int64_t j = 0; j < n2; ++j) dst[j] += wv * src[j * g.stride[2]];
                }
              }
            }
          }
        }
      }
    }
  }
}

// The direct loop for unpadded, unit-stride inner dims: output rows are computed at the input's
// row pitch, so every (output channel, input channel, kernel offset) is one long contiguous
// multiply-add over all rows of a plane (the columns past each output row take values that are
// dropped). Reads stop k2 * dil2 short of the plane's end, which only the dropped columns need.
template <class T>
void conv_direct_pitched(const T* x, const T* w, T* y, int64_t cg, int64_t og, const Geometry& g,
                         T* wide) {
  const int64_t taps = g.k_numel(), pitch = g.in[2], rows = g.out[1], plane = rows * pitch;
  for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
    std::fill(wide, wide + og * plane, T(0));
    for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
      const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dil[0];
      if (i0 < 0 || i0 >= g.in[0]) continue;
      for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
        for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
          const int64_t tap = (k0 * g.k[1] + k1) * g.k[2] + k2, shift = k2 * g.dil[2];
          const int64_t length = plane - shift;
          const int64_t first = (i0 * g.in[1] + k1 * g.dil[1]) * pitch + shift;
          for (int64_t o = 0; o < og; ++o) {
            T* __restrict dst = wide + o * plane;
            for (int64_t c = 0; c < cg; ++c) {
              const T wv = w[(o * cg + c) * taps + tap];
              const T* __restrict src = x + c * g.in_numel() + first;
              for (int64_t j = 0; j < length; ++j) dst[j] += wv * src[j];
            }
          }
        }
      }
    }
    for (int64_t o = 0; o < og; ++o) {
      for (int64_t r = 0; r < rows; ++r) {
        const T* src = wide + o * plane + r * pitch;
        std::copy(src, src + g.out[2], y + o * g.out_numel() + (o0 * rows + r) * g.out[2]);
      }
    }
  }
}

// Whether rows of an output plane can be computed at the input's pitch: inner dims unpadded,
// of unit stride (the rows of the plane read consecutive input rows).
bool pitched(const Geometry& g) {
  return g.pad[1] == 0 && g.pad[2] == 0 && g.stride[1] == 1 && g.stride[2] == 1;
}

// Whether the direct loop beats unfolding: rows of at least 8 outputs and a short reduction,
// and no BLAS (the loops are built for any x86-64, so without AVX; OpenBLAS picks the running
// CPU's kernels, and unfolding into its products was 1.5x faster on the guide's convolutions:
// conv2d_small 17-19 ms direct, 12-13 ms unfolded, on an AVX-512 EPYC).
bool prefers_direct(const Geometry& g, int64_t rows) {
  return !have_blas() && g.out[2] >= 8 && rows <= 256;
}

// Whether the unfolded matrix is the input itself (1x1 kernel, stride 1, no padding).
bool unfold_is_identity(const Geometry& g) {
  return g.k_numel() == 1 && g.stride == std::array<int64_t, 3>{1, 1, 1} &&
         g.pad == std::array<int64_t, 3>{0, 0, 0};
}

template <class T>
void conv_typed(const Array& x, const Array& w, const ir::ConvAttrs& a, Array& out) {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Shape &xs = x.type.shape, &ws = w.type.shape, &os = out.type.shape;
  const Geometry g = geometry(xs, ws, os, a);
  const int64_t groups = a.groups, cg = xs[1] / groups, og = ws[0] / groups;
  const int64_t rows = cg * g.k_numel(), on = g.out_numel();
  const T* xp = base_ptr<T>(x);
  const T* wp = base_ptr<T>(w);
  T* op = base_ptr<T>(out);
  const bool identity = unfold_is_identity(g);
  const int64_t tasks = xs[0] * groups;
  const int64_t workers = num_threads();
  // One (sample, group) product: out[og, on] = w[og, rows] x col[rows, on], over output rows
  // [r0, r1) (all of them unless the products are too few to give every core one).
  // Kernels wider than the output (weight gradients) unfold transposed (im2row): [on, rows].
  const bool by_rows = !identity && g.out[2] < g.k[2];
  auto product = [&](int64_t task, const T* col, int64_t r0, int64_t r1) {
    const int64_t n = task / groups, gi = task % groups;
    const T* w_rows = wp + (gi * og + r0) * rows;
    T* dst = op + ((n * os[1] + gi * og) + r0) * on;
    if (rows == 0) {
      std::fill(dst, dst + (r1 - r0) * on, T(0));
    } else if (have_blas()) {
      blas_gemm(false, by_rows, r1 - r0, on, rows, w_rows, rows, col, by_rows ? rows : on, dst, on);
    } else if (by_rows) {
      Eigen::Map<Mat>(dst, r1 - r0, on).noalias() =
          Eigen::Map<const Mat>(w_rows, r1 - r0, rows) *
          Eigen::Map<const Mat>(col, on, rows).transpose();
    } else {
      Eigen::Map<Mat>(dst, r1 - r0, on).noalias() =
          Eigen::Map<const Mat>(w_rows, r1 - r0, rows) * Eigen::Map<const Mat>(col, rows, on);
    }
  };
  auto unfold = [&](int64_t task, std::unique_ptr<T[]>& buffer) -> const T* {
    const T* in = xp + ((task / groups) * xs[1] + (task % groups) * cg) * g.in_numel();
    if (identity) return in;
    if (!buffer) buffer.reset(new T[static_cast<size_t>(rows * on)]);
    if (by_rows) {
      im2row(in, cg, g, buffer.get());
    } else {
      im2col(in, cg, g, buffer.get());
    }
    return buffer.get();
  };
  if (prefers_direct(g, rows) && !identity) {
    parallel_for(std::min(workers, tasks), [&](int64_t t) {
      const int64_t parts = std::min(workers, tasks);
      for (int64_t task = tasks * t / parts; task < tasks * (t + 1) / parts; ++task) {
        const int64_t n = task / groups, gi = task % groups;
        const T* xt = xp + (n * xs[1] + gi * cg) * g.in_numel();
        T* yt = op + (n * os[1] + gi * og) * on;
        if (pitched(g)) {
          std::vector<T> wide(static_cast<size_t>(og * g.out[1] * g.in[2]));
          conv_direct_pitched(xt, wp + gi * og * rows, yt, cg, og, g, wide.data());
        } else {
          conv_direct(xt, wp + gi * og * rows, yt, cg, og, g);
        }
      }
    });
    return;
  }
  if (tasks >= workers || og < 2) {
    parallel_for(workers, [&](int64_t t) {
      std::unique_ptr<T[]> buffer;
      for (int64_t task = tasks * t / workers; task < tasks * (t + 1) / workers; ++task) {
        product(task, unfold(task, buffer), 0, og);
      }
    });
    return;
  }
  std::unique_ptr<T[]> buffer;
  for (int64_t task = 0; task < tasks; ++task) {
    const T* col = unfold(task, buffer);
    const int64_t parts = std::min(workers, og);
    parallel_for(parts,
                 [&](int64_t p) { product(task, col, og * p / parts, og * (p + 1) / parts); });
  }
}

}  // namespace

Array run_conv(const Array& x_in, const Array& w_in, const ir::ConvAttrs& attrs,
               const TensorType& out_type) {
  const DType t = out_type.dtype;
  if (t == DType::F16 || t == DType::BF16) {
    TensorType f32_out{DType::F32, out_type.shape};
    return run_cast(
        run_conv(run_cast(x_in, DType::F32), run_cast(w_in, DType::F32), attrs, f32_out), t);
  }
  Array x = x_in.is_contiguous() ? x_in : make_contiguous(x_in);
  Array w = w_in.is_contiguous() ? w_in : make_contiguous(w_in);
  Array out = allocate(out_type);
  if (out_type.shape.numel() == 0) return out;
  if (t == DType::F64) {
    conv_typed<double>(x, w, attrs, out);
  } else {
    conv_typed<float>(x, w, attrs, out);
  }
  return out;
}

}  // namespace ember::runtime::cpu
