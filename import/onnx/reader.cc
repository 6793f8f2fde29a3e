#include "import/onnx/reader.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ir/error.h"

namespace ember::onnx_import {
namespace {

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("onnx: cannot open " + what + " '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The byte range [offset, offset + length) of an external file; length -1 reads to the end.
std::string read_range(const std::string& path, int64_t offset, int64_t length,
                       const std::string& tensor) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("onnx: tensor '" + tensor + "': cannot open external data '" + path + "'");
  in.seekg(0, std::ios::end);
  int64_t size = in.tellg();
  if (length < 0) length = size - offset;
  if (offset < 0 || offset + length > size) {
    throw Error("onnx: tensor '" + tensor + "': external data range [" + std::to_string(offset) +
                ", " + std::to_string(offset + length) + ") outside '" + path + "' (" +
                std::to_string(size) + " bytes)");
  }
  std::string out(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(out.data(), length);
  return out;
}

void load_tensor(::onnx::TensorProto& t, const std::string& base_dir) {
  if (t.data_location() != ::onnx::TensorProto::EXTERNAL) return;
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() == "offset") offset = std::stoll(kv.value());
    if (kv.key() == "length") length = std::stoll(kv.value());
  }
  if (location.empty())
    throw Error("onnx: tensor '" + t.name() + "': external data lacks a location");
  // A location is relative to the model's directory and may not leave it (ONNX's rule).
  std::filesystem::path rel(location);
  if (rel.is_absolute() || location.find("..") != std::string::npos) {
    throw Error("onnx: tensor '" + t.name() + "': external data location '" + location +
                "' must be a path inside the model's directory");
  }
  std::string path = (std::filesystem::path(base_dir) / rel).string();
  t.set_raw_data(read_range(path, offset, length, t.name()));
  t.clear_external_data();
  t.set_data_location(::onnx::TensorProto::DEFAULT);
}

void load_graph(::onnx::GraphProto& g, const std::string& base_dir) {
  for (auto& t : *g.mutable_initializer()) load_tensor(t, base_dir);
  for (auto& n : *g.mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_t()) load_tensor(*a.mutable_t(), base_dir);
      if (a.has_g()) load_graph(*a.mutable_g(), base_dir);
      for (auto& sub : *a.mutable_graphs()) load_graph(sub, base_dir);
    }
  }
}

// ONNX's version converter goes through its IR, which keeps only tensor types: the declared
// types of the graph's inputs, outputs and values that it dropped (sequences, optionals) are
// restored from the original by name.
void restore_types(const ::onnx::GraphProto& before, ::onnx::GraphProto& after) {
  std::map<std::string, const ::onnx::TypeProto*> types;
  for (const auto* list : {&before.input(), &before.output(), &before.value_info()}) {
    for (const auto& v : *list) types[v.name()] = &v.type();
  }
  for (auto* list : {after.mutable_input(), after.mutable_output(), after.mutable_value_info()}) {
    for (auto& v : *list) {
      auto it = types.find(v.name());
      if (it != types.end() && v.type().value_case() == ::onnx::TypeProto::VALUE_NOT_SET) {
        *v.mutable_type() = *it->second;
      }
    }
  }
}

// Runs one libonnx stage, turning its exceptions into ember::Error naming the file and stage.
template <class F>
void stage(const std::string& name, const std::string& what, F&& f) {
  try {
    f();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error("onnx: '" + name + "': " + what + " failed: " + e.what());
  }
}

}  // namespace

int default_opset(const ::onnx::ModelProto& model) {
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") return static_cast<int>(o.version());
  }
  return 0;
}

void load_external_data(::onnx::ModelProto& model, const std::string& base_dir) {
  load_graph(*model.mutable_graph(), base_dir);
}

::onnx::ModelProto read_model_bytes(const std::string& bytes, const std::string& base_dir,
                                    const std::string& name, const ReadOptions& options) {
  ::onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    throw Error("onnx: '" + name + "' is not an ONNX model (protobuf parse failed)");
  }
  if (!model.has_graph()) throw Error("onnx: '" + name + "' has no graph");
  if (options.load_external) load_external_data(model, base_dir);
  // The checker runs on the loaded model: external data is already inline.
  if (options.check) stage(name, "onnx::checker", [&] { ::onnx::checker::check_model(model); });
  int opset = default_opset(model);
  if (options.convert_opset && opset > 0 && opset < kTargetOpset) {
    stage(name, "opset conversion " + std::to_string(opset) + " -> " + std::to_string(kTargetOpset),
          [&] {
            ::onnx::ModelProto converted =
                ::onnx::version_conversion::ConvertVersion(model, kTargetOpset);
            restore_types(model.graph(), *converted.mutable_graph());
            model = std::move(converted);
          });
  }
  if (options.infer_shapes) {
    stage(name, "shape inference", [&] { ::onnx::shape_inference::InferShapes(model); });
  }
  return model;
}

::onnx::ModelProto read_model(const std::string& path, const ReadOptions& options) {
  std::string base = std::filesystem::path(path).parent_path().string();
  return read_model_bytes(read_file(path, "model"), base.empty() ? "." : base, path, options);
}

}  // namespace ember::onnx_import
