// Convolutions: the Conv primitive with a bias epilogue; transposed convolutions as the transpose
// of a convolution (ir/conv_compose.h), so the same kernels and gradient rules serve both.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/detail/primitives.h"
#include "frontend/module_ops.h"
#include "frontend/ops.h"
#include "ir/builder.h"
#include "ir/conv_compose.h"

namespace ember::ops {
namespace {

[[noreturn]] void fail(const char* op, const std::string& msg) {
  throw Error(absl::StrCat(op, ": ", msg));
}

// The recording interface ir/conv_compose.h composes with: taped primitives.
struct TapedOps {
  Shape shape(const RawTensor& v) const { return v.shape(); }
  RawTensor reshape(const RawTensor& v, const Shape& s) { return prim::reshape(v, s); }
  RawTensor permute(const RawTensor& v, const std::vector<int>& p) { return prim::permute(v, p); }
  RawTensor flip(const RawTensor& v, const std::vector<int>& axes) { return prim::flip(v, axes); }
  RawTensor pad(const RawTensor& v, const std::vector<int64_t>& before,
                const std::vector<int64_t>& after) {
    return prim::pad(v, before, after, ir::Scalar::from_double(0));
  }
  RawTensor slice(const RawTensor& v, const std::vector<int64_t>& starts,
                  const std::vector<int64_t>& counts) {
    return prim::slice(v, starts, counts, std::vector<int64_t>(starts.size(), 1));
  }
  RawTensor conv(const RawTensor& x, const RawTensor& w, const ir::ConvAttrs& a) {
    return prim::conv(x, w, a);
  }
  RawTensor sum(const RawTensor& v, int axis) { return prim::reduce(ir::ReduceFn::Sum, v, axis); }
};

std::string shapes(const RawTensor& x, const RawTensor& w) {
  return absl::StrCat("input ", x.type().to_string(), ", weight ", w.type().to_string());
}

// Checks what the primitive cannot name in the user's terms, and fills the defaults.
ir::ConvAttrs conv_attrs(const char* op, const RawTensor& x, const RawTensor& w,
                         const ConvArgs& args) {
  const int r = x.rank(), sr = r - 2;
  if (w.rank() != r) {
    fail(op, absl::StrCat("weight needs rank ", r, ": ", shapes(x, w)));
  }
  auto filled = [&](const std::vector<int64_t>& v, int64_t dflt, const char* what) {
    if (v.empty()) return std::vector<int64_t>(sr, dflt);
    if (static_cast<int>(v.size()) != sr) {
      fail(op, absl::StrCat(what, " needs ", sr, " values, got [", absl::StrJoin(v, ", "), "]"));
    }
    return v;
  };
  ir::ConvAttrs a;
  a.stride = filled(args.stride, 1, "stride");
  a.pad_before = a.pad_after = filled(args.padding, 0, "padding");
  a.dilation = filled(args.dilation, 1, "dilation");
  if (args.groups < 1 || args.groups > (int64_t{1} << 30)) {
    fail(op, absl::StrCat("groups must be >= 1, got ", args.groups));
  }
  a.groups = static_cast<int>(args.groups);
  return a;
}

RawTensor add_bias(const char* op, const RawTensor& y, const std::optional<RawTensor>& bias) {
  if (!bias) return y;
  const int64_t channels = y.shape()[1];
  if (bias->rank() != 1 || bias->shape()[0] != channels || bias->dtype() != y.dtype()) {
    fail(op, absl::StrCat("bias must be ", dtype_name(y.dtype()), "[", channels, "], got ",
                          bias->type().to_string()));
  }
  std::vector<int64_t> dims(y.rank(), 1);
  dims[1] = channels;
  return prim::binary(ir::BinaryFn::Add, y, prim::reshape(*bias, Shape(dims)));
}

}  // namespace

RawTensor conv(const char* op, const RawTensor& x, const RawTensor& weight,
               const std::optional<RawTensor>& bias, const ConvArgs& args) {
  ir::OpScope scope(op);
  ir::ConvAttrs a = conv_attrs(op, x, weight, args);
  return add_bias(op, prim::conv(x, weight, a), bias);
}

RawTensor conv_transpose(const char* op, const RawTensor& x, const RawTensor& w,
                         const std::optional<RawTensor>& bias, const ConvArgs& args) {
  ir::OpScope scope(op);
  ir::ConvAttrs a = conv_attrs(op, x, w, args);
  const int sr = x.rank() - 2;
  if (w.shape()[0] != x.shape()[1] || x.shape()[1] % a.groups != 0) {
    fail(op, absl::StrCat("weight needs [in_channels = ", x.shape()[1], ", out_channels / groups",
                          ", kernel...] with in_channels divisible by groups ", a.groups, ": ",
                          shapes(x, w)));
  }
  std::vector<int64_t> out_pad =
      args.padding_out.empty() ? std::vector<int64_t>(sr, 0) : args.padding_out;
  if (static_cast<int>(out_pad.size()) != sr) {
    fail(op, absl::StrCat("padding_out needs ", sr, " values"));
  }
  std::vector<int64_t> out(sr);
  for (int d = 0; d < sr; ++d) {
    if (out_pad[d] < 0 || (out_pad[d] >= a.stride[d] && out_pad[d] >= a.dilation[d])) {
      fail(op, absl::StrCat("padding_out ", out_pad[d], " must be smaller than the stride ",
                            a.stride[d], " or the dilation ", a.dilation[d]));
    }
    out[d] = (x.shape()[d + 2] - 1) * a.stride[d] - 2 * a.pad_before[d] +
             a.dilation[d] * (w.shape()[d + 2] - 1) + out_pad[d] + 1;
    if (out[d] < 1) {
      fail(op, absl::StrCat("output size ", out[d], " in spatial dim ", d,
                            " is not positive: ", shapes(x, w)));
    }
  }
  TapedOps ops;
  RawTensor y = ir::conv_compose::transpose(ops, x, w, a, out);
  return add_bias(op, y, bias);
}

}  // namespace ember::ops
