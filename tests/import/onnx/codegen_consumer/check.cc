// Loads a generated model's record, runs it on ONNX input tensors (.pb) and compares its outputs
// with the expected ones within 1e-4: check RECORD IN.pb... -- OUT.pb...
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include MODEL_HEADER
#include <ember/import/onnx/tensor_proto.h>

namespace {

ember::TensorData read_pb(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::TensorProto t;
  if (!f || !t.ParseFromString(ss.str())) throw ember::Error("cannot read " + path);
  return ember::onnx_import::to_data(t);
}

// The largest difference, or a message when the shapes differ.
bool compare(const ember::TensorData& got, const ember::TensorData& want, const std::string& what) {
  if (got.shape() != want.shape()) {
    std::printf("%s: shape %s, expected %s\n", what.c_str(), got.shape().to_string().c_str(),
                want.shape().to_string().c_str());
    return false;
  }
  std::vector<double> g = got.to_vec<double>(), w = want.to_vec<double>();
  double worst = 0;
  for (size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::abs(g[i] - w[i]));
  std::printf("%s: %zu elements, max |difference| %.3g\n", what.c_str(), g.size(), worst);
  return worst <= 1e-4;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<ember::TensorData> inputs, expected;
  bool outs = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      outs = true;
    } else {
      (outs ? expected : inputs).push_back(read_pb(a));
    }
  }
  MODEL model(ember::Device::cpu());
  model.load_record(argv[1]);
  std::vector<ember::TensorData> got = model.run(inputs);
  bool ok = got.size() == expected.size();
  for (size_t i = 0; ok && i < got.size(); ++i) {
    ok = compare(got[i].convert(ember::DType::F32), expected[i].convert(ember::DType::F32),
                 "output " + std::to_string(i)) &&
         ok;
  }
  return ok ? 0 : 1;
}
