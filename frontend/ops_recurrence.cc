// The LSTM recurrence as one recorded op (ir::OpKind::Lstm): the checks a user's mistake meets,
// in the frontend's words, before the IR's.
#include <string>

#include "absl/strings/str_cat.h"
#include "frontend/detail/primitives.h"
#include "frontend/module.h"

namespace ember::module {
namespace {

[[noreturn]] void fail(const Tensor<3>& xp, const Tensor<2>& w, const Tensor<2>& h0,
                       const Tensor<2>& c0, const std::string& msg) {
  throw Error(absl::StrCat("lstm_recurrence: ", msg, " (input gates ", xp.raw().type().to_string(),
                           ", weight_hh ", w.raw().type().to_string(), ", h0 ",
                           h0.raw().type().to_string(), ", c0 ", c0.raw().type().to_string(), ")"));
}

}  // namespace

Tensor<3> lstm_recurrence(const Tensor<3>& input_gates, const Tensor<2>& weight_hh,
                          const Tensor<2>& h0, const Tensor<2>& c0, bool reverse) {
  const Shape &xs = input_gates.shape(), &ws = weight_hh.shape();
  const int64_t hidden = ws[0];
  auto check = [&](bool ok, const std::string& msg) {
    if (!ok) fail(input_gates, weight_hh, h0, c0, msg);
  };
  check(is_float(input_gates.dtype()) && weight_hh.dtype() == input_gates.dtype() &&
            h0.dtype() == input_gates.dtype() && c0.dtype() == input_gates.dtype(),
        "needs tensors of one floating dtype");
  check(ws[1] == 4 * hidden, "weight_hh must be [hidden, 4 hidden]");
  check(xs[2] == 4 * hidden, "input gates must be [batch, seq, 4 hidden]");
  check(h0.shape() == Shape({xs[0], hidden}) && c0.shape() == Shape({xs[0], hidden}),
        "states must be [batch, hidden]");
  check(xs[0] >= 1 && xs[1] >= 1 && hidden >= 1, "needs a non-empty batch, sequence and state");
  ir::LstmAttrs attrs;
  attrs.reverse = reverse;
  return Tensor<3>(prim::lstm(input_gates.raw(), weight_hh.raw(), h0.raw(), c0.raw(), attrs));
}

}  // namespace ember::module
