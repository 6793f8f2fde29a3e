// Runs every generated node-case model on its case's inputs (test_data_set_0) and compares the
// outputs with the expected ones: |got - want| <= 1e-4 + 1e-3 |want|, NaN where NaN is expected.
// usage: node_cases NODE_DIR GENERATED_DIR
#include <ember/import/onnx/tensor_proto.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cases.h"

namespace {

namespace fs = std::filesystem;

ember::TensorData read_pb(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::TensorProto t;
  if (!f || !t.ParseFromString(ss.str())) throw ember::Error("cannot read " + path.string());
  return ember::onnx_import::to_data(t);
}

std::vector<ember::TensorData> read_all(const fs::path& dir, const std::string& stem) {
  std::vector<ember::TensorData> out;
  for (int i = 0; fs::exists(dir / (stem + std::to_string(i) + ".pb")); ++i) {
    out.push_back(read_pb(dir / (stem + std::to_string(i) + ".pb")));
  }
  return out;
}

// "" when the outputs match.
std::string compare(const std::vector<ember::TensorData>& got,
                    const std::vector<ember::TensorData>& want) {
  if (got.size() != want.size()) return "output count";
  for (size_t i = 0; i < got.size(); ++i) {
    std::string o = "output " + std::to_string(i);
    if (got[i].shape() != want[i].shape()) {
      return o + ": shape " + got[i].shape().to_string() + ", expected " +
             want[i].shape().to_string();
    }
    std::vector<double> g = got[i].to_vec<double>(), w = want[i].to_vec<double>();
    for (size_t k = 0; k < g.size(); ++k) {
      if (std::isnan(w[k]) && std::isnan(g[k])) continue;
      if (!(std::abs(g[k] - w[k]) <= 1e-4 + 1e-3 * std::abs(w[k]))) {
        return o + ": element " + std::to_string(k) + " is " + std::to_string(g[k]) +
               ", expected " + std::to_string(w[k]);
      }
    }
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::vector<Case> cases;
  add_cases(cases);
  int passed = 0, failed = 0, unreadable = 0;
  for (const auto& c : cases) {
    fs::path data = fs::path(argv[1]) / c.name / "test_data_set_0";
    std::vector<ember::TensorData> in, want;
    try {
      in = read_all(data, "input_");
      want = read_all(data, "output_");
    } catch (const ember::Error& e) {  // element types Ember lacks (bf16 stored as UINT16)
      std::printf("unreadable test data %s: %s\n", c.name.c_str(), e.what());
      ++unreadable;
      continue;
    }
    std::string why;
    try {
      why = compare(c.run((fs::path(argv[2]) / c.name / (c.name + ".ember")).string(), in), want);
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (why.empty()) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", c.name.c_str(), why.c_str());
    }
  }
  std::printf("%zu generated cases: %d passed, %d failed, %d with unreadable test data\n",
              cases.size(), passed, failed, unreadable);
  return failed == 0 && passed > 0 ? 0 : 1;
}
