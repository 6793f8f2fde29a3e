// The signal windows: HannWindow, HammingWindow, BlackmanWindow, as cosine sums over an iota.
#include <numbers>

#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"
#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

// w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic) or size - 1.
Outputs window(NodeContext& c, double a0, double a1, double a2) {
  int64_t size = static_cast<int64_t>(c.scalar_input(0));
  double denom = c.attr_int("periodic", 1) ? size : size - 1;
  RawTensor n = ops::arange(0, size, 1, DType::F64, c.device());
  RawTensor phase = bin(BinaryFn::Mul, n, 2 * std::numbers::pi / denom);
  RawTensor w =
      bin(BinaryFn::Sub, scalar_like(n, a0), bin(BinaryFn::Mul, un(UnaryFn::Cos, phase), a1));
  if (a2 != 0) {
    w = bin(BinaryFn::Add, w,
            bin(BinaryFn::Mul, un(UnaryFn::Cos, bin(BinaryFn::Mul, phase, 2.0)), a2));
  }
  auto dt = to_dtype(static_cast<int32_t>(c.attr_int("output_datatype", 1)));
  if (!dt) c.fail("output_datatype Ember lacks");
  return {Value::tensor(ops::cast(w, *dt), 1)};
}

}  // namespace

void register_window(Registry& r) {
  const std::vector<std::string> attrs = {"output_datatype", "periodic"};
  r.add("HannWindow", {[](NodeContext& c) { return window(c, 0.5, 0.5, 0); }, attrs});
  r.add("HammingWindow",
        {[](NodeContext& c) { return window(c, 25.0 / 46.0, 21.0 / 46.0, 0); }, attrs});
  r.add("BlackmanWindow", {[](NodeContext& c) { return window(c, 0.42, 0.5, 0.08); }, attrs});
}

}  // namespace ember::onnx_import
