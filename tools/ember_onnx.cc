// ember-onnx: reads an ONNX model as Ember imports it and prints a summary (inputs, outputs,
// opset, op counts, parameters), or every unsupported construct at once; or writes the model as
// a C++ module with its record (--emit-cpp).
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "import/onnx/codegen/cpp_module.h"
#include "import/onnx/model.h"
#include "import/onnx/registry.h"

namespace {

namespace ox = ember::onnx_import;

constexpr const char* kUsage = R"(usage: ember-onnx [OPTIONS] MODEL.onnx
  prints the model's inputs and outputs (symbolic dims by name), opsets, op counts before and
  after folding constants at import, and its parameters; exits 1 listing every unsupported op,
  attribute and element type when Ember cannot import it
options:
  --device D      the device the model is imported onto (cpu, cpu-ref, vulkan[:N], cuda[:N];
                  default: cpu)
  --no-check      skip onnx::checker
  --ops           print the op types Ember imports, one per line, and exit
  --emit-cpp DIR  write the model as C++ into the new folder DIR: NAME.h, NAME.cc (a module
                  class: parameters, load_record, forward), NAME.ember (its record) and a
                  CMakeLists.txt building it against the installed Ember package; exits 1
                  listing every node without a C++ form, writing nothing
  --name NAME     the generated class's name (default: the model file's stem)
  --cpp-ops       print the op types --emit-cpp generates, one per line, and exit
  --help          this text
)";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "ember-onnx: %s\n%s", why.c_str(), kUsage);
  return 2;
}

void print_summary(const ::onnx::ModelProto& proto, const ox::Model& m, const std::string& path) {
  std::cout << "model: " << path << "\n";
  std::cout << "producer: " << proto.producer_name() << " " << proto.producer_version()
            << ", IR version " << proto.ir_version() << "\n";
  std::cout << "opsets:";
  for (const auto& o : proto.opset_import()) {
    std::cout << " " << (o.domain().empty() ? "ai.onnx" : o.domain()) << "=" << o.version();
  }
  std::cout << " (imported at " << m.opset() << ")\n";
  std::cout << "inputs:\n";
  for (const auto& io : m.inputs()) std::cout << "  " << io.to_string() << "\n";
  std::cout << "outputs:\n";
  for (const auto& io : m.outputs()) std::cout << "  " << io.to_string() << "\n";
  std::map<std::string, int> in_file;
  for (const auto& n : proto.graph().node()) ++in_file[n.op_type()];
  std::map<std::string, int> running = m.op_counts();
  std::cout << "nodes: " << proto.graph().node_size() << " in the file, " << m.folded_nodes()
            << " folded into constants at import\n";
  std::cout << "ops (in the file / run):\n";
  for (const auto& [op, n] : in_file) {
    std::cout << "  " << op << " " << n << " / " << (running.count(op) ? running[op] : 0) << "\n";
  }
  std::cout << "parameters: " << m.num_params() << " in " << m.weights().entries.size()
            << " tensors\n";
  for (const auto& e : m.weights().entries) {
    std::visit(
        [&](const auto& p) { std::cout << "  " << e.name << " " << p.shape().to_string() << "\n"; },
        e.param);
  }
}

// The model file's stem as an identifier ("resnet-18.onnx" -> "resnet_18").
std::string default_class_name(const std::string& path) {
  std::string s;
  for (char ch : std::filesystem::path(path).stem().string()) {
    s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  ox::ImportOptions options;
  options.device = ember::Device::cpu();
  std::string path, emit_dir, name;
  bool name_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--ops") {
      for (const auto& op : ox::Registry::instance().op_types()) std::cout << op << "\n";
      return 0;
    } else if (a == "--cpp-ops") {
      for (const auto& op : ox::codegen::cpp_op_types()) std::cout << op << "\n";
      return 0;
    } else if (a == "--emit-cpp") {
      if (++i >= argc) return usage_error("--emit-cpp needs a folder");
      emit_dir = argv[i];
    } else if (a == "--name") {
      if (++i >= argc) return usage_error("--name needs a class name");
      name = argv[i];
      name_given = true;
    } else if (a == "--no-check") {
      options.read.check = false;
    } else if (a == "--device") {
      if (++i >= argc) return usage_error("--device needs a value");
      try {
        options.device = ember::Device::parse(argv[i]);
      } catch (const ember::Error& e) {
        return usage_error(e.what());
      }
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option " + a);
    } else if (path.empty()) {
      path = a;
    } else {
      return usage_error("one model at a time");
    }
  }
  if (path.empty()) return usage_error("no model given");
  if (name_given && emit_dir.empty()) return usage_error("--name goes with --emit-cpp");
  if (!emit_dir.empty() && !name_given) name = default_class_name(path);
  if (!emit_dir.empty() && !ox::codegen::valid_class_name(name)) {
    return usage_error("'" + name + "' is not a C++ class name (give one with --name)");
  }
  try {
    ::onnx::ModelProto proto = ox::read_model(path, options.read);
    ox::Model m = ox::Model::from_proto(proto, path, options);
    if (!emit_dir.empty()) {
      std::string file = std::filesystem::path(path).filename().string();
      ox::codegen::write_cpp(m, {name, file}, emit_dir);
      std::cout << "wrote " << emit_dir << ": " << name << ".h, " << name << ".cc, " << name
                << ".ember, CMakeLists.txt\n";
      return 0;
    }
    print_summary(proto, m, path);
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "ember-onnx: %s\n", e.what());
    return 1;
  }
  return 0;
}
