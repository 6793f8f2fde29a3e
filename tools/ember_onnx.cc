// ember-onnx: reads an ONNX model as Ember imports it and prints a summary (inputs, outputs,
// opset, op counts, parameters), or every unsupported construct at once.
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

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

}  // namespace

int main(int argc, char** argv) {
  ox::ImportOptions options;
  options.device = ember::Device::cpu();
  std::string path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--ops") {
      for (const auto& op : ox::Registry::instance().op_types()) std::cout << op << "\n";
      return 0;
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
  try {
    ::onnx::ModelProto proto = ox::read_model(path, options.read);
    ox::Model m = ox::Model::from_proto(proto, path, options);
    print_summary(proto, m, path);
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "ember-onnx: %s\n", e.what());
    return 1;
  }
  return 0;
}
