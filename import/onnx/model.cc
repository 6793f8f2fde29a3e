#include "import/onnx/model.h"

#include <algorithm>
#include <optional>
#include <set>

#include "frontend/tensor.h"
#include "import/onnx/graph_runner.h"
#include "import/onnx/registry.h"
#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import {
namespace {

// The tensor type inside a type: itself, a sequence's or an optional's element (nullptr when
// none is a tensor).
const ::onnx::TypeProto_Tensor* tensor_inside(const ::onnx::TypeProto& t) {
  if (t.has_tensor_type()) return &t.tensor_type();
  if (t.has_sequence_type()) return tensor_inside(t.sequence_type().elem_type());
  if (t.has_optional_type()) return tensor_inside(t.optional_type().elem_type());
  return nullptr;
}

IoInfo io_info(const ::onnx::ValueInfoProto& v) {
  IoInfo io;
  io.name = v.name();
  if (v.type().has_sequence_type()) io.kind = Value::Kind::Sequence;
  if (v.type().has_optional_type()) io.kind = Value::Kind::Optional;
  if (const auto* tensor = tensor_inside(v.type())) {
    const auto& tt = *tensor;
    io.onnx_type = tt.elem_type();
    io.has_shape = tt.has_shape();
    for (const auto& d : tt.shape().dim()) {
      io.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
      io.dim_names.push_back(d.has_dim_param() ? d.dim_param() : "");
    }
  }
  return io;
}

}  // namespace

std::string IoInfo::to_string() const {
  std::string s = name + ": ";
  if (kind == Value::Kind::Sequence) s += "sequence of ";
  if (kind == Value::Kind::Optional) s += "optional ";
  s += onnx_type ? onnx_type_name(onnx_type) : "?";
  if (!has_shape) return s + "[?]";
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += !dim_names[i].empty() ? dim_names[i] : dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return s + "]";
}

Model Model::load(const std::string& path, const ImportOptions& options) {
  return from_proto(read_model(path, options.read), path, options);
}

Model Model::from_proto(const ::onnx::ModelProto& proto, const std::string& name,
                        const ImportOptions& options) {
  Model m;
  m.device_ = options.device;
  m.float_dtype_ = options.float_dtype;
  m.opset_ = default_opset(proto);
  m.graph_ = std::make_shared<const ::onnx::GraphProto>(proto.graph());
  const auto& g = *m.graph_;
  m.check_supported(name);
  std::set<std::string> init_names;
  for (const auto& t : g.initializer()) {
    init_names.insert(t.name());
    TensorData d = to_data(t);
    if (options.float_dtype && is_float(d.dtype())) d = d.convert(*options.float_dtype);
    if (is_float(d.dtype()) && d.shape().rank() <= kMaxParamRank && d.num_elements() > 0) {
      m.weights_.entries.push_back(
          {t.name(), Weights::make_param(d, m.device_, options.trainable), d.shape().rank()});
    } else {
      m.constants_.insert_or_assign(t.name(), Value::known(std::move(d)));
    }
  }
  // Before IR version 4 initializers were also listed as inputs: those are not bound at run time.
  for (const auto& v : g.input()) {
    if (!init_names.count(v.name())) m.inputs_.push_back(io_info(v));
  }
  for (const auto& v : g.output()) m.outputs_.push_back(io_info(v));
  for (const auto& n : g.node()) m.nodes_.push_back(&n);
  m.fold_constants();
  return m;
}

namespace {

// Adds what Ember cannot import of graph `g` (its subgraphs included) to `problems`.
void check_graph(const ::onnx::GraphProto& g, int opset, std::vector<std::string>& problems) {
  auto check_type = [&](const ::onnx::ValueInfoProto& v, const char* what) {
    // Tensors, and sequences and optionals of them; an undeclared type is found when it runs.
    if (v.type().value_case() == ::onnx::TypeProto::VALUE_NOT_SET) return;
    const ::onnx::TypeProto_Tensor* tensor = tensor_inside(v.type());
    if (!tensor) {
      problems.push_back(std::string(what) + " '" + v.name() + "' is not a tensor");
      return;
    }
    int32_t t = tensor->elem_type();
    if (t && !to_dtype(t)) {
      problems.push_back(std::string(what) + " '" + v.name() + "' has element type " +
                         onnx_type_name(t) + ", which Ember lacks");
    }
  };
  for (const auto& v : g.input()) check_type(v, "input");
  for (const auto& v : g.output()) check_type(v, "output");
  for (const auto& v : g.value_info()) check_type(v, "value");
  for (const auto& t : g.initializer()) {
    if (!to_dtype(t.data_type())) {
      problems.push_back("initializer '" + t.name() + "' has element type " +
                         onnx_type_name(t.data_type()) + ", which Ember lacks");
    }
  }
  for (const auto& n : g.node()) {
    std::string why = unsupported_reason(n, opset);
    if (!why.empty()) problems.push_back(describe(n, opset) + ": " + why);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) check_graph(a.g(), opset, problems);
      for (const auto& sub : a.graphs()) check_graph(sub, opset, problems);
    }
  }
}

}  // namespace

void Model::check_supported(const std::string& name) const {
  std::vector<std::string> problems;
  check_graph(*graph_, opset_, problems);
  if (problems.empty()) return;
  std::string msg = "onnx: '" + name + "': " + std::to_string(problems.size()) +
                    " unsupported construct" + (problems.size() > 1 ? "s" : "") + ":";
  for (const auto& p : problems) msg += "\n  " + p;
  throw Error(msg);
}

namespace {

// The shapes the file declares or shape inference found with every dim fixed, by value name.
// Fixed dims hold at every run: bind_inputs checks the graph inputs' fixed dims.
std::map<std::string, std::vector<int64_t>> static_shapes(const ::onnx::GraphProto& g) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()}) {
    for (const auto& v : *list) {
      if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
      std::vector<int64_t> dims;
      bool fixed = true;
      for (const auto& d : v.type().tensor_type().shape().dim()) {
        fixed = fixed && d.has_dim_value();
        dims.push_back(d.dim_value());
      }
      if (fixed) out[v.name()] = dims;
    }
  }
  return out;
}

// A Shape or Size node of a value whose shape is static: its result, known at import.
std::optional<Value> static_shape_node(const ::onnx::NodeProto& n,
                                       const std::map<std::string, std::vector<int64_t>>& shapes) {
  if ((n.op_type() != "Shape" && n.op_type() != "Size") || n.input_size() != 1) return std::nullopt;
  if (!n.domain().empty() && n.domain() != "ai.onnx") return std::nullopt;
  auto it = shapes.find(n.input(0));
  if (it == shapes.end()) return std::nullopt;
  const std::vector<int64_t>& dims = it->second;
  if (n.op_type() == "Size") {
    return Value::known(TensorData(std::vector<int64_t>{Shape(dims).numel()}, Shape{}));
  }
  int64_t r = static_cast<int64_t>(dims.size()), start = 0, end = r;
  for (const auto& a : n.attribute()) {
    if (a.name() == "start") start = a.i();
    if (a.name() == "end") end = a.i();
  }
  start = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
  end = std::clamp<int64_t>(end < 0 ? end + r : end, start, r);
  return Value::known(TensorData(std::vector<int64_t>(dims.begin() + start, dims.begin() + end)));
}

}  // namespace

// Nodes whose inputs are all constants, and shapes of values whose shape is static, are
// evaluated once, here, on the host: what remains to run depends on the graph inputs' values
// and symbolic dims or on the parameters.
void Model::fold_constants() {
  std::map<std::string, Value> env = constants_;
  std::vector<const ::onnx::NodeProto*> kept;
  auto shapes = static_shapes(*graph_);
  for (const auto* n : nodes_) {
    if (auto v = static_shape_node(*n, shapes)) {
      env.insert_or_assign(n->output(0), *v);
      ++folded_;
    } else if (all_known(*n, env)) {
      run_node(*n, opset_, env, Device::cpu_reference(), /*host=*/true);
      ++folded_;
    } else {
      kept.push_back(n);
    }
  }
  // Only the constants something still reads (or the graph returns) are kept.
  std::set<std::string> used;
  for (const auto* n : kept) add_reads(*n, used);
  for (const auto& o : outputs_) used.insert(o.name);
  constants_.clear();
  for (auto& [k, v] : env) {
    if (!used.count(k)) continue;
    bool convert = float_dtype_ && v.is_tensor() && is_float(v.dtype());
    constants_.insert_or_assign(k, convert ? Value::known(v.data().convert(*float_dtype_)) : v);
  }
  nodes_ = std::move(kept);
}

std::vector<Value> Model::bind_inputs(const std::vector<Value>& given) const {
  if (given.size() != inputs_.size()) {
    throw Error("onnx: the model takes " + std::to_string(inputs_.size()) + " inputs, got " +
                std::to_string(given.size()));
  }
  std::map<std::string, int64_t> symbols;  // symbolic dims bound by the first input using them
  for (size_t i = 0; i < given.size(); ++i) {
    const IoInfo& io = inputs_[i];
    const Value& v = given[i];
    std::string where = "onnx: input '" + io.name + "' (" + io.to_string() + ")";
    if (io.kind != v.kind()) throw Error(where + ": got a value of another kind");
    if (io.kind != Value::Kind::Tensor) continue;
    std::optional<DType> want = to_dtype(io.onnx_type);
    if (want && is_float(*want) && float_dtype_) want = float_dtype_;
    if (io.onnx_type && want != v.dtype()) {
      throw Error(where + ": got a " + dtype_name(v.dtype()) + " tensor");
    }
    if (!io.has_shape) continue;
    std::vector<int64_t> dims = v.dims();
    if (dims.size() != io.dims.size()) {
      throw Error(where + ": got rank " + std::to_string(dims.size()));
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      if (io.dims[d] >= 0 && io.dims[d] != dims[d]) {
        throw Error(where + ": dim " + std::to_string(d) + " is " + std::to_string(dims[d]));
      }
      if (io.dims[d] < 0 && !io.dim_names[d].empty()) {
        auto [it, fresh] = symbols.emplace(io.dim_names[d], dims[d]);
        if (!fresh && it->second != dims[d]) {
          throw Error(where + ": dim '" + io.dim_names[d] + "' is " + std::to_string(dims[d]) +
                      " here but " + std::to_string(it->second) + " in an earlier input");
        }
      }
    }
  }
  return given;
}

std::vector<Value> Model::evaluate(const std::vector<Value>& inputs) const {
  std::map<std::string, Value> env = constants_;
  for (const auto& e : weights_.entries) {
    RawTensor t = Weights::value(e.param);
    env.insert_or_assign(e.name, Value::tensor(t, e.onnx_rank));
  }
  std::vector<Value> bound = bind_inputs(inputs);
  for (size_t i = 0; i < bound.size(); ++i) env.insert_or_assign(inputs_[i].name, bound[i]);
  run_nodes(nodes_, opset_, env, device_);
  std::vector<Value> out;
  for (const auto& o : outputs_) {
    auto it = env.find(o.name);
    if (it == env.end()) throw Error("onnx: output '" + o.name + "' is not computed");
    out.push_back(it->second);
  }
  return out;
}

std::vector<RawTensor> Model::forward(const std::vector<RawTensor>& inputs) const {
  std::vector<Value> in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    bool scalar = i < inputs_.size() && inputs_[i].has_shape && inputs_[i].dims.empty();
    in.push_back(Value::tensor(inputs[i], scalar ? 0 : inputs[i].rank()));
  }
  std::vector<RawTensor> out;
  for (const auto& v : evaluate(in)) out.push_back(v.on(device_));
  return out;
}

std::vector<TensorData> Model::run(const std::vector<TensorData>& inputs) const {
  std::vector<Value> in;
  for (const auto& d : inputs) {
    // Float inputs in the dtype the model runs in.
    TensorData x = float_dtype_ && is_float(d.dtype()) ? d.convert(*float_dtype_) : d;
    in.push_back(Value::tensor(detail::raw_from_data(at_least_1d(x), device_), d.shape().rank()));
  }
  std::vector<TensorData> out;
  for (const auto& v : evaluate(in)) out.push_back(v.data());
  return out;
}

Model Model::with_weights(Weights w) const {
  Model m = *this;
  m.weights_ = std::move(w);
  return m;
}

std::map<std::string, int> Model::op_counts() const {
  std::map<std::string, int> counts;
  for (const auto* n : nodes_) ++counts[n->op_type()];
  return counts;
}

}  // namespace ember::onnx_import
