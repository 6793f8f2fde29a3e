// Models exported by PyTorch (scripts/make_onnx_fixtures.py; committed under fixtures/): a
// ResNet-18-layout CNN and a small transformer encoder give PyTorch's outputs within 1e-4, at
// other batch sizes too (symbolic dims bound at run time), and PyTorch's gradients.
// EMBER_ONNX_TEST_DEVICE (cpu-ref, vulkan:0, cuda:0) runs them on another device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "import/onnx/model.h"
#include "import/onnx/tensor_proto.h"
#include "tests/test_device.h"

namespace ember::onnx_import {
namespace {

Device test_device() {
  const char* env = std::getenv("EMBER_ONNX_TEST_DEVICE");
  return env && *env ? ::ember::testing::parse_test_device(env) : Device::cpu();
}

std::string fixture(const std::string& name) {
  return std::string(EMBER_ONNX_FIXTURES) + "/" + name;
}

TensorData read_pb(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  ::onnx::TensorProto t;
  if (!t.ParseFromString(ss.str())) throw Error("cannot parse " + path);
  return to_data(t);
}

void expect_close(const TensorData& got, const TensorData& want, double tol = 1e-4) {
  ASSERT_EQ(got.shape(), want.shape());
  auto g = got.to_vec<double>(), w = want.to_vec<double>();
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i], w[i], tol * std::max(1.0, std::abs(w[i]))) << "element " << i;
  }
}

// The first `n` entries of dim 0.
TensorData first_rows(const TensorData& d, int64_t n) {
  std::vector<int64_t> dims = d.shape().vector();
  size_t row = d.bytes().size() / dims[0];
  dims[0] = n;
  std::vector<std::byte> bytes(d.bytes().begin(), d.bytes().begin() + row * n);
  return TensorData(d.dtype(), Shape(dims), std::move(bytes));
}

class PyTorchModels : public ::testing::TestWithParam<std::string> {};

TEST_P(PyTorchModels, MatchPyTorchAtEveryBatchSize) {
  ImportOptions options;
  options.device = test_device();
  Model m = Model::load(fixture(GetParam() + ".onnx"), options);
  // Pair 1 has other dynamic sizes (batch; sequence for the transformer) than pair 0.
  for (const char* pair : {"0", "1"}) {
    SCOPED_TRACE(std::string("pair ") + pair);
    TensorData x = read_pb(fixture(GetParam() + "_input_" + pair + ".pb"));
    TensorData want = read_pb(fixture(GetParam() + "_output_" + pair + ".pb"));
    expect_close(m.run({x})[0], want);
    // A batch of one: the symbolic batch dim binds to 1.
    expect_close(m.run({first_rows(x, 1)})[0], first_rows(want, 1));
  }
}

// The CNN run in bfloat16 (parameters, constants, activations) stays near PyTorch's f32 outputs.
TEST(PyTorchModelsBf16, ResNetMatchesPyTorchLoosely) {
  ImportOptions options;
  options.device = test_device();
  options.float_dtype = DType::BF16;
  Model m = Model::load(fixture("resnet18_quarter.onnx"), options);
  ASSERT_FALSE(m.weights().entries.empty());
  TensorData got = m.run({read_pb(fixture("resnet18_quarter_input_0.pb"))})[0];
  EXPECT_EQ(got.dtype(), DType::BF16);
  expect_close(got.convert(DType::F32), read_pb(fixture("resnet18_quarter_output_0.pb")), 5e-2);
}

// Every parameter gets a finite gradient, and those PyTorch's were saved for match them.
TEST_P(PyTorchModels, GradientsMatchPyTorch) {
  ImportOptions options;
  options.device = test_device();
  Model m = Model::load(fixture(GetParam() + ".onnx"), options);
  ASSERT_GT(m.num_params(), 0);
  TensorData x = read_pb(fixture(GetParam() + "_input_0.pb"));
  RawTensor in = detail::raw_from_data(x, options.device);
  Gradients grads = backward(m.forward({in})[0]);
  int with_grad = 0, compared = 0;
  for (const auto& e : m.weights().entries) {
    auto g = grads.get(Weights::value(e.param));
    if (!g) continue;
    ++with_grad;
    for (double v : g->to_data().to_vec<double>()) ASSERT_TRUE(std::isfinite(v)) << e.name;
    std::string torch_grad = fixture(GetParam() + "_grad_" + e.name + ".pb");
    if (!std::filesystem::exists(torch_grad)) continue;
    SCOPED_TRACE(e.name);
    expect_close(g->to_data(), read_pb(torch_grad));
    ++compared;
  }
  EXPECT_EQ(with_grad, static_cast<int>(m.weights().entries.size()));
  EXPECT_EQ(compared, 2);
}

// The standard-width ResNet-18 (46 MB, not committed): `scripts/make_onnx_fixtures.py DIR
// --full-resnet18 PATH.onnx` writes it with PyTorch's input and output beside it; the test runs
// when EMBER_ONNX_FULL_RESNET18 names that .onnx file.
TEST(PyTorchFullResNet18, MatchesPyTorch) {
  const char* path = std::getenv("EMBER_ONNX_FULL_RESNET18");
  if (!path || !*path) GTEST_SKIP() << "set EMBER_ONNX_FULL_RESNET18 to run it";
  const std::string stem = std::filesystem::path(path).replace_extension().string();
  ImportOptions options;
  options.device = test_device();
  Model m = Model::load(path, options);
  TensorData got = m.run({read_pb(stem + "_input_0.pb")})[0];
  expect_close(got, read_pb(stem + "_output_0.pb"));
  std::cout << "ResNet-18 on " << options.device.to_string() << ": " << got.shape().to_string()
            << " within 1e-4 of PyTorch\n";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PyTorchModels,
                         ::testing::Values("resnet18_quarter", "transformer"));

}  // namespace
}  // namespace ember::onnx_import
