// Emitters of ArgMax/ArgMin, GatherElements, Split, Trilu, Mod, CastLike and the creation ops
// ConstantOfShape and Range (whose shape or bounds are host values: dims and constants).
#include "import/onnx/codegen/emitters.h"

namespace ember::onnx_import::codegen {
namespace {

using Outputs = std::vector<Sym>;

EmitEntry arg_reduce(const std::string& fn) {
  return {[fn](EmitContext& c) {
            const NodeContext& a = c.attrs();
            int rank = c.rank(0);
            int64_t axis = a.axis(a.attr_int("axis", 0), std::max(rank, 1));
            bool keep = a.attr_int("keepdims", 1), last = a.attr_int("select_last_index", 0);
            return Outputs{c.device("arg_reduce(" + c.tensor(0) + ", " + std::to_string(rank) +
                                        ", ember::ir::ReduceFn::" + fn + ", " +
                                        std::to_string(axis) + ", " + (keep ? "true" : "false") +
                                        ", " + (last ? "true" : "false") + ")",
                                    keep ? rank : rank - 1)};
          },
          nullptr};
}

Outputs split(EmitContext& c) {
  const NodeContext& a = c.attrs();
  int rank = c.rank(0);
  int64_t axis = a.axis(a.attr_int("axis", 0), rank);
  std::vector<std::string> sizes;
  if (c.has_input(1)) {
    sizes = c.host(1);
  } else {
    for (int64_t s : a.attr_ints("split")) sizes.push_back(std::to_string(s));
  }
  int64_t parts = a.has_attr("num_outputs") ? a.attr_int("num_outputs", 1) : c.node().output_size();
  std::string var = c.fresh("pieces");
  c.line("const std::vector<RawTensor> " + var + " = split(" + c.tensor(0) + ", " +
         std::to_string(axis) + ", " + cpp_list(sizes) + ", " + std::to_string(parts) + ");");
  Outputs out;
  for (int i = 0; i < c.node().output_size(); ++i) {
    out.push_back(Sym{false, var + "[" + std::to_string(i) + "]", rank, DType::F32, {}});
  }
  return out;
}

Outputs trilu(EmitContext& c) {
  std::string k = c.has_input(1) ? c.host(1).at(0) : "0";
  bool upper = c.attrs().attr_int("upper", 1);
  return {
      c.device(std::string("ops::") + (upper ? "triu(" : "tril(") + c.tensor(0) + ", " + k + ")",
               c.rank(0))};
}

Outputs mod(EmitContext& c) {
  std::string a = c.tensor(0), b = c.tensor(1);
  std::string y = c.attrs().attr_int("fmod", 0) ? "trunc_mod(" + a + ", " + b + ")"
                                                : "bin(BinaryFn::Rem, " + a + ", " + b + ")";
  return {c.device(y, std::max(c.rank(0), c.rank(1)))};
}

Outputs cast_like(EmitContext& c) {
  std::string x = c.tensor(0), like = c.tensor(1);
  return {c.device("ops::cast(" + x + ", " + like + ".dtype())", c.rank(0))};
}

Outputs constant_of_shape(EmitContext& c) {
  const std::vector<std::string>& dims = c.host(0);
  TensorData v = c.attrs().has_attr("value") ? to_data(c.attrs().attr("value")->t())
                                             : TensorData(std::vector<float>{0.0f});
  if (is_bool(v.dtype())) c.unsupported("a bool value");
  std::string s =
      is_float(v.dtype())
          ? "ember::Scalar(" + cpp_float(v.value_at(0)) + ")"
          : "ember::Scalar(int64_t{" + std::to_string(static_cast<int64_t>(v.value_at(0))) + "})";
  std::string shape = dims.empty() ? "ember::Shape{1}" : "ember::Shape" + cpp_list(dims);
  return {c.device("ops::full(" + shape + ", " + s + ", " + cpp_dtype(v.dtype()) + ", device_)",
                   static_cast<int>(dims.size()))};
}

Outputs range(EmitContext& c) {
  std::vector<std::string> b;
  for (int i = 0; i < 3; ++i) {
    if (c.host(i).size() != 1) c.unsupported("a bound that is not a scalar");
    b.push_back("static_cast<double>(" + c.host(i)[0] + ")");
  }
  return {c.device(
      "range(" + b[0] + ", " + b[1] + ", " + b[2] + ", " + cpp_dtype(c.in(0).dtype) + ", device_)",
      1)};
}

Outputs gather_elements(EmitContext& c) {
  int rank = c.rank(0);
  int64_t axis = c.attrs().axis(c.attrs().attr_int("axis", 0), rank);
  std::string x = c.tensor(0), idx = c.tensor(1);
  return {c.device("gather_elements(" + x + ", " + std::to_string(axis) + ", " + idx + ")", rank)};
}

}  // namespace

void add_index_emitters(std::map<std::string, EmitEntry>& t) {
  t["ArgMax"] = arg_reduce("ArgMax");
  t["ArgMin"] = arg_reduce("ArgMin");
  t["Split"] = {split, nullptr};
  t["GatherElements"] = {gather_elements, nullptr};
  t["Trilu"] = {trilu, nullptr};
  t["Mod"] = {mod, nullptr};
  t["CastLike"] = {cast_like, nullptr};
  // Host inputs only: the device emitter reads them with host(), so it runs on host values too.
  t["ConstantOfShape"] = {constant_of_shape, nullptr};
  t["Range"] = {range, nullptr};
}

}  // namespace ember::onnx_import::codegen
