// Emitters of the math ops: elementwise, activations, MatMul/Gemm, normalisations, Conv and
// pooling, softmax. Each prints the frontend calls its converter under ops/ makes.
#include <algorithm>

#include "import/onnx/codegen/emitters.h"

namespace ember::onnx_import::codegen {
namespace {

using Outputs = std::vector<Sym>;

// The largest ONNX rank among the given inputs.
int max_rank(EmitContext& c) {
  int r = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.has_input(i)) r = std::max(r, c.rank(i));
  }
  return r;
}

EmitEntry unary(const std::string& call) {
  return {[call](EmitContext& c) {
            return Outputs{c.device(call + "(" + c.tensor(0) + ")", c.rank(0))};
          },
          nullptr};
}

EmitEntry unary_fn(const std::string& fn) {
  return {[fn](EmitContext& c) {
            return Outputs{c.device("un(UnaryFn::" + fn + ", " + c.tensor(0) + ")", c.rank(0))};
          },
          nullptr};
}

EmitEntry binary_fn(const std::string& fn) {
  return {
      [fn](EmitContext& c) {
        std::string a = c.tensor(0), b = c.tensor(1);
        return Outputs{c.device("bin(BinaryFn::" + fn + ", " + a + ", " + b + ")", max_rank(c))};
      },
      nullptr};
}

Outputs pow(EmitContext& c) {
  // The exponent may have another type than the base (opset 12).
  std::string a = c.tensor(0), b = c.tensor(1);
  return {c.device("bin(BinaryFn::Pow, " + a + ", ops::cast(" + b + ", " + a + ".dtype()))",
                   max_rank(c))};
}

Outputs variadic(EmitContext& c, const std::string& fn) {
  std::string acc = c.tensor(0);
  for (int i = 1; i < c.num_inputs(); ++i)
    acc = "bin(BinaryFn::" + fn + ", " + acc + ", " + c.tensor(i) + ")";
  return {c.device(acc, max_rank(c))};
}

Outputs clip(EmitContext& c) {
  std::string x = c.tensor(0);
  if (c.has_input(1)) x = "bin(BinaryFn::Max, " + x + ", " + c.tensor(1) + ")";
  if (c.has_input(2)) x = "bin(BinaryFn::Min, " + x + ", " + c.tensor(2) + ")";
  const NodeContext& a = c.attrs();
  if (a.has_attr("min"))
    x = "bin(BinaryFn::Max, " + x + ", " + cpp_float(a.attr_float("min", 0)) + ")";
  if (a.has_attr("max"))
    x = "bin(BinaryFn::Min, " + x + ", " + cpp_float(a.attr_float("max", 0)) + ")";
  return {c.device(x, c.rank(0))};
}

Outputs cast(EmitContext& c) {
  auto to = to_dtype(static_cast<int32_t>(c.attrs().attr_int("to", 0)));
  if (!to) c.unsupported("cast to an element type Ember lacks");
  return {c.device("ops::cast(" + c.tensor(0) + ", " + cpp_dtype(*to) + ")", c.rank(0))};
}

Outputs softmax(EmitContext& c, const std::string& fn) {
  if (c.opset() < 13) c.unsupported("softmax before opset 13 (over flattened trailing dims)");
  int rank = std::max(c.rank(0), 1);
  int64_t axis = c.attrs().axis(c.attrs().attr_int("axis", -1), rank);
  return {
      c.device("ops::" + fn + "(" + c.tensor(0) + ", " + std::to_string(axis) + ")", c.rank(0))};
}

Outputs matmul(EmitContext& c) {
  int ra = c.rank(0), rb = c.rank(1);
  int out = std::max(ra, rb) - (ra == 1) - (rb == 1);
  if (ra == 1 && rb == 1) out = 0;
  std::string a = c.tensor(0), b = c.tensor(1);
  return {c.device(
      "matmul(" + a + ", " + std::to_string(ra) + ", " + b + ", " + std::to_string(rb) + ")", out)};
}

Outputs gemm(EmitContext& c) {
  const NodeContext& at = c.attrs();
  std::string a = c.tensor(0), b = c.tensor(1);
  if (at.attr_int("transA", 0)) a = "ops::transpose(" + a + ")";
  if (at.attr_int("transB", 0)) b = "ops::transpose(" + b + ")";
  std::string y = "ops::matmul(" + a + ", " + b + ")";
  double alpha = at.attr_float("alpha", 1.0f), beta = at.attr_float("beta", 1.0f);
  if (alpha != 1.0) y = "bin(BinaryFn::Mul, " + y + ", " + cpp_float(alpha) + ")";
  if (c.has_input(2)) {
    std::string bias = c.tensor(2);
    if (beta != 1.0) bias = "bin(BinaryFn::Mul, " + bias + ", " + cpp_float(beta) + ")";
    y = "bin(BinaryFn::Add, " + y + ", " + bias + ")";
  }
  return {c.device(y, 2)};
}

Outputs layer_norm(EmitContext& c) {
  int64_t axis = c.attrs().axis(c.attrs().attr_int("axis", -1), c.rank(0));
  std::string x = c.tensor(0), scale = c.tensor(1);
  std::string bias = c.has_input(2) ? c.tensor(2) : "RawTensor()";
  std::string var = c.fresh("norm");
  c.line("const LayerNorm " + var + " = layer_norm(" + x + ", " + std::to_string(axis) + ", " +
         cpp_float(c.attrs().attr_float("epsilon", 1e-5f)) + ", " + scale + ", " + bias + ");");
  Outputs out;
  for (const char* field : {".y", ".mean", ".inv_std"}) {
    out.push_back(Sym{false, var + field, c.rank(0), DType::F32, {}});
  }
  return out;
}

Outputs batch_norm(EmitContext& c) {
  if (c.attrs().attr_int("training_mode", 0)) c.unsupported("training mode");
  std::vector<std::string> in;
  for (int i = 0; i < 5; ++i) in.push_back(c.tensor(i));
  return {c.device("batch_norm(" + in[0] + ", " + in[1] + ", " + in[2] + ", " + in[3] + ", " +
                       in[4] + ", " + cpp_float(c.attrs().attr_float("epsilon", 1e-5f)) + ")",
                   c.rank(0))};
}

// A Window literal of the prelude from the node's attributes (kernel_shape may be absent for
// Conv: the weight's), and its auto_pad, resolved against the input's dims when forward runs.
std::string window(EmitContext& c, std::vector<int64_t> kernel, size_t n) {
  const NodeContext& a = c.attrs();
  std::vector<int64_t> pads = a.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (pads.size() != 2 * n) c.unsupported("pads of another rank than the kernel");
  std::vector<int64_t> begin(pads.begin(), pads.begin() + n), end(pads.begin() + n, pads.end());
  return "Window{" + cpp_ints(kernel) + ", " +
         cpp_ints(a.attr_ints("strides", std::vector<int64_t>(n, 1))) + ", " +
         cpp_ints(a.attr_ints("dilations", std::vector<int64_t>(n, 1))) + ", " + cpp_ints(begin) +
         ", " + cpp_ints(end) + "}, \"" + a.attr_string("auto_pad", "NOTSET") + "\"";
}

Outputs conv(EmitContext& c) {
  std::vector<int64_t> kernel = c.attrs().attr_ints("kernel_shape");
  size_t n = kernel.empty() ? static_cast<size_t>(std::max(c.rank(1) - 2, 0)) : kernel.size();
  std::string x = c.tensor(0), weight = c.tensor(1);
  std::string bias =
      c.has_input(2) ? "std::optional<RawTensor>(" + c.tensor(2) + ")" : "std::nullopt";
  return {c.device("conv(" + x + ", " + weight + ", " + bias + ", " + window(c, kernel, n) + ", " +
                       std::to_string(c.attrs().attr_int("group", 1)) + ")",
                   c.rank(0))};
}

Outputs conv_transpose(EmitContext& c) {
  const NodeContext& a = c.attrs();
  std::string x = c.tensor(0), weight = c.tensor(1);
  std::string bias =
      c.has_input(2) ? "std::optional<RawTensor>(" + c.tensor(2) + ")" : "std::nullopt";
  std::string args;
  for (const char* name :
       {"kernel_shape", "strides", "dilations", "output_padding", "pads", "output_shape"}) {
    args += cpp_ints(a.attr_ints(name)) + ", ";
  }
  return {c.device("conv_transpose(" + x + ", " + weight + ", " + bias + ", " + args + "\"" +
                       a.attr_string("auto_pad", "NOTSET") + "\", " +
                       std::to_string(a.attr_int("group", 1)) + ")",
                   c.rank(0))};
}

Outputs pool(EmitContext& c, bool max) {
  if (max && c.has_output(1)) c.unsupported("MaxPool's indices output");
  std::vector<int64_t> kernel = c.attrs().attr_ints("kernel_shape");
  std::string w = window(c, kernel, kernel.size());
  std::string ceil = c.attrs().attr_int("ceil_mode", 0) ? "true" : "false";
  if (max) return {c.device("max_pool(" + c.tensor(0) + ", " + w + ", " + ceil + ")", c.rank(0))};
  std::string count = c.attrs().attr_int("count_include_pad", 0) ? "true" : "false";
  return {
      c.device("avg_pool(" + c.tensor(0) + ", " + w + ", " + ceil + ", " + count + ")", c.rank(0))};
}

// ReduceSum/Mean/Max/Min/Prod: axes from input 1 (ReduceSum from opset 13) or the attribute;
// none reduces all, unless noop_with_empty_axes.
// `pre` and `post` wrap the operand and the result (ReduceL2 = sqrt of the sum of squares ...).
EmitEntry reduction(const std::string& fn, bool mean, std::string pre = "", std::string post = "") {
  return {[fn, mean, pre, post](EmitContext& c) {
            const NodeContext& a = c.attrs();
            int rank = c.rank(0);
            std::vector<int64_t> axes = c.has_input(1) ? c.const_ints(1) : a.attr_ints("axes");
            if (axes.empty() && a.attr_int("noop_with_empty_axes", 0)) return Outputs{c.in(0)};
            if (axes.empty()) {
              for (int d = 0; d < rank; ++d) axes.push_back(d);
            }
            for (auto& x : axes) x = a.axis(x, rank);
            std::sort(axes.begin(), axes.end());
            axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
            bool keep = a.attr_int("keepdims", 1);
            int out = keep ? rank : rank - static_cast<int>(axes.size());
            std::string x = c.tensor(0);
            if (pre == "square") x = "bin(BinaryFn::Mul, " + x + ", " + x + ")";
            if (pre == "abs") x = "un(UnaryFn::Abs, " + x + ")";
            std::string open = post.empty() ? "" : "un(UnaryFn::" + post + ", ";
            std::string close = post.empty() ? "" : ")";
            return Outputs{c.device(open + "reduce(" + x + ", " + std::to_string(rank) +
                                        ", ember::ir::ReduceFn::" + fn + ", " +
                                        (mean ? "true" : "false") + ", " + cpp_ints(axes) + ", " +
                                        (keep ? "true" : "false") + ")" + close,
                                    out)};
          },
          nullptr};
}

}  // namespace

void add_math_emitters(std::map<std::string, EmitEntry>& t) {
  const std::pair<const char*, const char*> unary_fns[] = {
      {"Neg", "Neg"},   {"Abs", "Abs"},          {"Exp", "Exp"},        {"Log", "Log"},
      {"Sqrt", "Sqrt"}, {"Sin", "Sin"},          {"Cos", "Cos"},        {"Tanh", "Tanh"},
      {"Erf", "Erf"},   {"Floor", "Floor"},      {"Ceil", "Ceil"},      {"Round", "Round"},
      {"Sign", "Sign"}, {"Reciprocal", "Recip"}, {"Not", "LogicalNot"},
  };
  for (const auto& [op, fn] : unary_fns) t[op] = unary_fn(fn);
  const std::pair<const char*, const char*> binary_fns[] = {
      {"Add", "Add"},           {"Sub", "Sub"},        {"Mul", "Mul"},      {"Div", "Div"},
      {"Equal", "Eq"},          {"Less", "Lt"},        {"Greater", "Gt"},   {"LessOrEqual", "Le"},
      {"GreaterOrEqual", "Ge"}, {"And", "LogicalAnd"}, {"Or", "LogicalOr"}, {"Xor", "Ne"},
  };
  for (const auto& [op, fn] : binary_fns) t[op] = binary_fn(fn);
  t["Relu"] = unary("ops::relu");
  t["Sigmoid"] = unary("ops::sigmoid");
  t["Pow"] = {pow, nullptr};
  t["Max"] = {[](EmitContext& c) { return variadic(c, "Max"); }, nullptr};
  t["Min"] = {[](EmitContext& c) { return variadic(c, "Min"); }, nullptr};
  t["Sum"] = {[](EmitContext& c) { return variadic(c, "Add"); }, nullptr};
  t["Clip"] = {clip, nullptr};
  t["Cast"] = {cast, nullptr};
  t["Where"] = {[](EmitContext& c) {
                  std::string k = c.tensor(0), a = c.tensor(1), b = c.tensor(2);
                  return Outputs{c.device("where(" + k + ", " + a + ", " + b + ")", max_rank(c))};
                },
                nullptr};
  t["LeakyRelu"] = {[](EmitContext& c) {
                      double a = c.attrs().attr_float("alpha", 0.01f);
                      return Outputs{c.device(
                          "ops::leaky_relu(" + c.tensor(0) + ", " + cpp_float(a) + ")", c.rank(0))};
                    },
                    nullptr};
  t["HardSigmoid"] = {[](EmitContext& c) {
                        double a = c.attrs().attr_float("alpha", 0.2f);
                        double b = c.attrs().attr_float("beta", 0.5f);
                        return Outputs{c.device("ops::hard_sigmoid(" + c.tensor(0) + ", " +
                                                    cpp_float(a) + ", " + cpp_float(b) + ")",
                                                c.rank(0))};
                      },
                      nullptr};
  t["HardSwish"] = {[](EmitContext& c) {
                      std::string x = c.tensor(0);
                      return Outputs{c.device("bin(BinaryFn::Mul, " + x + ", ops::hard_sigmoid(" +
                                                  x + ", 1.0 / 6.0, 0.5))",
                                              c.rank(0))};
                    },
                    nullptr};
  t["Softplus"] = {[](EmitContext& c) {
                     return Outputs{c.device("ops::softplus(" + c.tensor(0) + ", 1.0)", c.rank(0))};
                   },
                   nullptr};
  t["Softmax"] = {[](EmitContext& c) { return softmax(c, "softmax"); }, nullptr};
  t["LogSoftmax"] = {[](EmitContext& c) { return softmax(c, "log_softmax"); }, nullptr};
  t["ReduceSum"] = reduction("Sum", false);
  t["ReduceMean"] = reduction("Sum", true);
  t["ReduceMax"] = reduction("Max", false);
  t["ReduceMin"] = reduction("Min", false);
  t["ReduceProd"] = reduction("Prod", false);
  t["ReduceSumSquare"] = reduction("Sum", false, "square");
  t["ReduceL1"] = reduction("Sum", false, "abs");
  t["ReduceL2"] = reduction("Sum", false, "square", "Sqrt");
  t["ReduceLogSum"] = reduction("Sum", false, "", "Log");
  t["MatMul"] = {matmul, nullptr};
  t["Gemm"] = {gemm, nullptr};
  t["LayerNormalization"] = {layer_norm, nullptr};
  t["BatchNormalization"] = {batch_norm, nullptr};
  t["Conv"] = {conv, nullptr};
  t["ConvTranspose"] = {conv_transpose, nullptr};
  t["MaxPool"] = {[](EmitContext& c) { return pool(c, true); }, nullptr};
  t["AveragePool"] = {[](EmitContext& c) { return pool(c, false); }, nullptr};
  t["GlobalAveragePool"] = {
      [](EmitContext& c) {
        return Outputs{c.device("global_pool(" + c.tensor(0) + ", false)", c.rank(0))};
      },
      nullptr};
  t["GlobalMaxPool"] = {
      [](EmitContext& c) {
        return Outputs{c.device("global_pool(" + c.tensor(0) + ", true)", c.rank(0))};
      },
      nullptr};
}

}  // namespace ember::onnx_import::codegen
