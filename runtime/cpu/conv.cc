// Grouped N-d convolution on the CPU: per sample and group, the input patches are unfolded into a
// [C/groups * K, OS] matrix (im2col) and multiplied with the group's [O/groups, C/groups * K]
// weight on Eigen. Samples run in parallel. f16/bf16 compute in f32.
#include <Eigen/Core>
#include <array>

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

// col[(c, k0, k1, k2), (o0, o1, o2)] = x[c, o * stride - pad + k * dil], 0 outside.
template <class T>
void im2col(const T* x, int64_t channels, const Geometry& g, T* col) {
  const int64_t on = g.out_numel();
  for (int64_t c = 0; c < channels; ++c) {
    const T* xc = x + c * g.in_numel();
    for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
        for (int64_t k2 = 0; k2 < g.k[2]; ++k2, col += on) {
          T* dst = col;
          for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
            const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dil[0];
            for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
              const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dil[1];
              const bool row_ok = i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1];
              const T* src = xc + (i0 * g.in[1] + i1) * g.in[2];
              for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                const int64_t i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dil[2];
                *dst++ = row_ok && i2 >= 0 && i2 < g.in[2] ? src[i2] : T(0);
              }
            }
          }
        }
  }
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
  parallel_for(xs[0], [&](int64_t n) {
    std::vector<T> col(static_cast<size_t>(rows * on));
    for (int64_t gi = 0; gi < groups; ++gi) {
      im2col(xp + (n * xs[1] + gi * cg) * g.in_numel(), cg, g, col.data());
      Eigen::Map<const Mat> wm(wp + gi * og * rows, og, rows);
      Eigen::Map<const Mat> cm(col.data(), rows, on);
      Eigen::Map<Mat> om(op + (n * os[1] + gi * og) * on, og, on);
      if (rows == 0) {
        om.setZero();
      } else {
        om.noalias() = wm * cm;
      }
    }
  });
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
