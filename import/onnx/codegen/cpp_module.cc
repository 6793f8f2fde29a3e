// Assembles the generated files: the class declaration (parameters as nn::Param fields named
// by their ONNX names in the record), the source (prelude, constructor, load_record, forward,
// run) and the CMake project that builds it against the installed Ember package.
#include "import/onnx/codegen/cpp_module.h"

#include <cctype>
#include <set>
#include <sstream>

#include "import/onnx/codegen/graph_walk.h"
#include "import/onnx/codegen/prelude.h"
#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import::codegen {
namespace {

// C++ keywords (and alternative tokens such as `and`, `xor`), which ONNX names may be.
bool is_keyword(const std::string& s) {
  static const std::set<std::string> words = {"alignas",       "alignof",     "and",
                                              "and_eq",        "asm",         "auto",
                                              "bitand",        "bitor",       "bool",
                                              "break",         "case",        "catch",
                                              "char",          "char8_t",     "char16_t",
                                              "char32_t",      "class",       "compl",
                                              "concept",       "const",       "consteval",
                                              "constexpr",     "constinit",   "const_cast",
                                              "continue",      "co_await",    "co_return",
                                              "co_yield",      "decltype",    "default",
                                              "delete",        "do",          "double",
                                              "dynamic_cast",  "else",        "enum",
                                              "explicit",      "export",      "extern",
                                              "false",         "float",       "for",
                                              "friend",        "goto",        "if",
                                              "inline",        "int",         "long",
                                              "mutable",       "namespace",   "new",
                                              "noexcept",      "not",         "not_eq",
                                              "nullptr",       "operator",    "or",
                                              "or_eq",         "private",     "protected",
                                              "public",        "register",    "reinterpret_cast",
                                              "requires",      "return",      "short",
                                              "signed",        "sizeof",      "static",
                                              "static_assert", "static_cast", "struct",
                                              "switch",        "template",    "this",
                                              "thread_local",  "throw",       "true",
                                              "try",           "typedef",     "typeid",
                                              "typename",      "union",       "unsigned",
                                              "using",         "virtual",     "void",
                                              "volatile",      "wchar_t",     "while",
                                              "xor",           "xor_eq"};
  return words.count(s) > 0;
}

// A C++ identifier for an ONNX name, unique among `taken`.
std::string identifier(const std::string& name, std::set<std::string>& taken) {
  std::string s;
  // Names with "__" or a leading "_" and capital are reserved: runs of '_' become one.
  for (char ch : name) {
    char c = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    if (c != '_' || s.empty() || s.back() != '_') s += c;
  }
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) s = "x" + s;
  if (is_keyword(s)) s += "_";
  std::string out = s;
  for (int i = 1; taken.count(out); ++i) out = s + "_" + std::to_string(i);
  taken.insert(out);
  return out;
}

std::string kind_of(DType d) {
  return is_float(d) ? "ember::Float" : is_bool(d) ? "ember::Bool" : "ember::Int";
}

// The typed tensor a graph input or output is given as (rank 0 as rank 1).
std::string tensor_type(int rank, DType d) {
  std::string r = std::to_string(std::max(rank, 1));
  return is_float(d) && d == DType::F32 ? "ember::Tensor<" + r + ">"
                                        : "ember::Tensor<" + r + ", " + kind_of(d) + ">";
}

struct Io {
  std::string var;  // the forward argument or Outputs field
  int rank = 0;
  DType dtype = DType::F32;
  std::string doc;
};

std::vector<Io> io_list(const std::vector<IoInfo>& infos, const char* what,
                        std::vector<std::string>& problems) {
  std::vector<Io> out;
  std::set<std::string> taken = {"device_", "inputs", "out"};
  for (const auto& io : infos) {
    Io x{identifier(io.name, taken), static_cast<int>(io.dims.size()), DType::F32, io.to_string()};
    auto dt = to_dtype(io.onnx_type);
    if (io.kind != Value::Kind::Tensor || !io.has_shape || !dt) {
      problems.push_back(std::string(what) + " '" + io.name +
                         "': only tensors of a declared rank and element type are generated");
    } else {
      x.dtype = *dt;
    }
    out.push_back(x);
  }
  return out;
}

struct Parts {
  std::vector<Io> inputs, outputs;
  std::vector<std::string> params;  // field names, in weights() order
  Walk walk;
};

std::string param_type(const Weights::Entry& e) {
  return "ember::nn::Param<ember::Tensor<" + std::to_string(std::max(e.onnx_rank, 1)) + ">>";
}

std::string param_shape(const Weights::Entry& e) {
  return std::visit([](const auto& p) { return cpp_ints(p.shape().vector()); }, e.param);
}

std::string header(const Model& m, const CppOptions& o, const Parts& p) {
  const std::string& n = o.class_name;
  std::ostringstream h;
  h << "#pragma once\n// " << n << ": generated by ember-onnx from " << o.source_name
    << ". Regenerate rather than edit.\n// " << m.num_params() << " parameters in "
    << p.params.size() << " tensors, saved beside this file as " << n << ".ember.\n"
    << "#include <ember/ember.h>\n#include <ember/nn/module.h>\n#include <ember/nn/param.h>\n\n"
    << "#include <string>\n#include <vector>\n\nclass " << n
    << " {\n public:\n  struct Outputs {\n";
  for (const auto& x : p.outputs)
    h << "    " << tensor_type(x.rank, x.dtype) << " " << x.var << ";  // " << x.doc << "\n";
  h << "  };\n\n  explicit " << n
    << "(const ember::Device& device = ember::Device::default_device());\n"
    << "  // Loads the parameter values ember-onnx saved (" << n << ".ember); throws ember::Error\n"
    << "  // naming the file when a tensor is missing or of another shape, leaving *this as it "
       "was.\n"
    << "  void load_record(const std::string& path);\n  // Symbolic dims take the sizes of the "
       "tensors given.\n";
  for (const auto& x : p.inputs) h << "  //   " << x.doc << "\n";
  h << "  Outputs forward(";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    h << (i ? ", " : "") << "const " << tensor_type(p.inputs[i].rank, p.inputs[i].dtype) << "& "
      << p.inputs[i].var;
  }
  h << ") const;\n  // forward on host data in the ONNX shapes (rank 0 included), outputs in "
       "order.\n"
    << "  std::vector<ember::TensorData> run(const std::vector<ember::TensorData>& inputs) "
       "const;\n\n";
  const auto& entries = m.weights().entries;
  for (size_t i = 0; i < entries.size(); ++i) {
    h << "  " << param_type(entries[i]) << " " << p.params[i] << ";  // " << entries[i].name << " "
      << param_shape(entries[i]) << "\n";
  }
  h << "\n  static constexpr const char* module_name() { return \"" << n << "\"; }\n"
    << "  // Record paths are the ONNX initializer names.\n"
    << "  template <class Self, class F>\n  static void for_each_field(Self& self, F&& f) {\n";
  for (size_t i = 0; i < entries.size(); ++i)
    h << "    f(\"" << entries[i].name << "\", self." << p.params[i] << ");\n";
  if (entries.empty()) h << "    (void)self;\n    (void)f;\n";
  h << "  }\n  EMBER_MODULE_METHODS(" << n << ")\n\n private:\n  ember::Device device_;\n";
  for (const auto& c : p.walk.constants)
    h << "  ember::RawTensor " << c.var << ";  // " << c.onnx << "\n";
  h << "};\n";
  return h.str();
}

// An output's tensor: a host value (a shape, a constant) is uploaded.
std::string output_tensor(const Sym& s) {
  if (!s.host) return s.var;
  return std::string(is_float(s.dtype) ? "upload_floats(" : "upload_ints(") + cpp_list(s.elems) +
         ", " + std::to_string(s.rank) + ", " + cpp_dtype(s.dtype) + ", device_)";
}

std::string constant_init(const ConstantMember& c) {
  const TensorData& d = c.data;
  std::string type =
      is_float(d.dtype()) ? (d.dtype() == DType::F64 ? "double" : "float") : "int64_t";
  std::string values;
  if (is_float(d.dtype())) {
    for (double v : d.to_vec<double>()) values += (values.empty() ? "" : ", ") + cpp_float(v);
  } else {
    for (int64_t v : d.to_vec<int64_t>())
      values += (values.empty() ? "" : ", ") + std::to_string(v);
  }
  std::vector<int64_t> dims = d.shape().vector();
  if (dims.empty()) dims.push_back(1);
  return "  " + c.var + " = ops::cast(ember::detail::raw_from_data(ember::TensorData(std::vector<" +
         type + ">{" + values + "}, ember::Shape" + cpp_ints(dims) + "), device), " +
         cpp_dtype(d.dtype()) + ");\n";
}

std::string source(const Model& m, const CppOptions& o, const Parts& p) {
  const std::string& n = o.class_name;
  std::ostringstream s;
  s << "// " << n << ": generated by ember-onnx from " << o.source_name
    << ". Regenerate rather than edit.\n"
    << "#include \"" << n
    << ".h\"\n\n#include <ember/frontend/module_ops.h>\n#include <ember/frontend/ops.h>\n"
    << "#include <ember/nn/record.h>\n\n#include <algorithm>\n#include <cmath>\n#include "
       "<limits>\n#include <optional>\n#include <string>\n#include <utility>\n\n"
    << prelude() << "\n"
    << n << "::" << n << "(const ember::Device& device)\n    : ";
  const auto& entries = m.weights().entries;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    std::string t = param_type(e), shape = "ember::Shape" + param_shape(e);
    std::string dt = std::visit([](const auto& q) { return cpp_dtype(q.val().dtype()); }, e.param);
    // Lazy: a load right after construction never makes the placeholder values.
    s << p.params[i] << "(" << t << "::lazy(ember::nn::ParamId(), " << shape
      << ", device, true,\n        [](const ember::Device& d) { return ember::Tensor<"
      << std::max(e.onnx_rank, 1) << ">(ops::zeros(" << shape << ", " << dt
      << ", d)); })),\n      ";
  }
  s << "device_(device) {\n";
  for (const auto& c : p.walk.constants) s << constant_init(c);
  s << "}\n\nvoid " << n
    << "::load_record(const std::string& path) { *this = ember::nn::load(*this, path); }\n\n"
    << n << "::Outputs " << n << "::forward(";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    s << (i ? ", " : "") << "const " << tensor_type(p.inputs[i].rank, p.inputs[i].dtype) << "& "
      << p.inputs[i].var;
  }
  s << ") const {\n";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    s << "  const RawTensor in" << i << " = ops::cast(" << p.inputs[i].var << ".raw(), "
      << cpp_dtype(p.inputs[i].dtype) << ");\n";
  }
  for (size_t i = 0; i < entries.size(); ++i)
    s << "  const RawTensor w" << i << " = " << p.params[i] << ".val().raw();\n";
  for (const auto& line : p.walk.body.lines) s << "  " << line << "\n";
  s << "  return Outputs{";
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    s << (i ? ", " : "") << tensor_type(p.outputs[i].rank, p.outputs[i].dtype) << "(ops::cast("
      << output_tensor(p.walk.syms.at(m.outputs()[i].name)) << ", " << cpp_dtype(p.outputs[i].dtype)
      << "))";
  }
  s << "};\n}\n\nstd::vector<ember::TensorData> " << n
    << "::run(const std::vector<ember::TensorData>& inputs) const {\n"
    << "  if (inputs.size() != " << p.inputs.size() << ") throw ember::Error(\"" << n
    << "::run: takes " << p.inputs.size() << " inputs\");\n  Outputs out = forward(";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    s << (i ? ", " : "") << tensor_type(p.inputs[i].rank, p.inputs[i].dtype)
      << "(from_onnx_data(inputs[" << i << "], device_))";
  }
  s << ");\n  return {";
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    s << (i ? ", " : "") << "onnx_data(out." << p.outputs[i].var << ".raw(), " << p.outputs[i].rank
      << ")";
  }
  s << "};\n}\n";
  return s.str();
}

std::string cmake(const CppOptions& o) {
  const std::string& n = o.class_name;
  return "# " + n + ": generated by ember-onnx from " + o.source_name +
         ". Builds the model as a library against an installed Ember\n"
         "# (cmake -DCMAKE_PREFIX_PATH=<prefix>), or as a subdirectory of a project.\n"
         "cmake_minimum_required(VERSION 3.25)\nproject(" +
         n +
         " LANGUAGES CXX)\n"
         "if(NOT TARGET ember::nn)\n  find_package(ember 0.1 REQUIRED)\nendif()\n"
         "add_library(" +
         n + " STATIC " + n +
         ".cc)\n"
         "target_link_libraries(" +
         n +
         " PUBLIC ember::nn)\n"
         "target_include_directories(" +
         n + " PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})\n";
}

}  // namespace

CppFiles generate_cpp(const Model& model, const CppOptions& options) {
  if (!valid_class_name(options.class_name)) {
    throw Error("onnx: '" + options.class_name + "' is not a C++ class name");
  }
  Parts p;
  std::vector<std::string> problems;
  p.inputs = io_list(model.inputs(), "input", problems);
  p.outputs = io_list(model.outputs(), "output", problems);
  std::vector<std::string> input_vars, param_vars;
  for (size_t i = 0; i < p.inputs.size(); ++i) input_vars.push_back("in" + std::to_string(i));
  std::set<std::string> taken = {"device_", "module_name", "forward", "run", "load_record"};
  for (size_t i = 0; i < model.weights().entries.size(); ++i) {
    p.params.push_back(identifier(model.weights().entries[i].name, taken));
    param_vars.push_back("w" + std::to_string(i));
  }
  p.walk = walk_graph(model, input_vars, param_vars);
  problems.insert(problems.end(), p.walk.problems.begin(), p.walk.problems.end());
  for (const auto& o : model.outputs()) {
    if (!p.walk.syms.count(o.name) && !p.walk.problems.size()) {
      problems.push_back("output '" + o.name + "' is not computed");
    }
  }
  if (!problems.empty()) {
    std::string msg = "onnx: '" + options.source_name + "': " + std::to_string(problems.size()) +
                      " construct" + (problems.size() > 1 ? "s" : "") + " without a C++ form:";
    for (const auto& q : problems) msg += "\n  " + q;
    throw Error(msg);
  }
  return {header(model, options, p), source(model, options, p), cmake(options)};
}

bool valid_class_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || is_keyword(name)) {
    return false;
  }
  for (char ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
  }
  return true;
}

std::vector<std::string> cpp_op_types() {
  std::vector<std::string> out;
  for (const auto& [op, e] : emit_table()) out.push_back(op);
  return out;
}

}  // namespace ember::onnx_import::codegen
