// The ONNX backend node cases (Debian's libonnx-testdata): every case imported and run on the
// CPU, its outputs compared with the expected ones at the backend tests' tolerances (rtol 1e-3,
// atol 1e-7). A case is `unsupported` when the import reports an op, attribute or element type
// Ember lacks (before anything runs), `failed` on any other error or a wrong output, `passed`
// otherwise. The per-case results go to a JSON file (scripts/onnx_table.py renders docs/onnx.md);
// the test fails when fewer than 90% of the supported cases pass.
#include <gtest/gtest.h>
#include <onnx/onnx-data_pb.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "frontend/tensor.h"
#include "import/onnx/model.h"
#include "import/onnx/registry.h"
#include "import/onnx/tensor_proto.h"
#include "tests/test_device.h"

namespace ember::onnx_import {
namespace {

namespace fs = std::filesystem;

struct CaseResult {
  std::string name, status, message;
  std::set<std::string> ops;
  double seconds = 0;
};

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// A tensor; `declared` is the element type the model declares for it. (The test data of ONNX
// 1.12 stores bfloat16 tensors as uint16 holding the same bits.)
TensorData tensor_of(::onnx::TensorProto t, int32_t declared) {
  if (t.data_type() == ::onnx::TensorProto::UINT16 && declared == ::onnx::TensorProto::BFLOAT16) {
    t.set_data_type(::onnx::TensorProto::BFLOAT16);
  }
  return to_data(t);
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The value a test file holds for an input or output the model declares as `io`: a tensor, a
// sequence or an optional. Tensors go to `device` (graph inputs), or stay on the host when
// `device` is null (expected outputs).
Value sequence_of(const ::onnx::SequenceProto& s, const IoInfo& io, const Device* device);

Value tensor_value(const ::onnx::TensorProto& t, const IoInfo& io, const Device* device) {
  TensorData d = tensor_of(t, io.onnx_type);
  if (!device) return Value::known(d);
  return Value::tensor(detail::raw_from_data(at_least_1d(d), *device), d.shape().rank());
}

Value sequence_of(const ::onnx::SequenceProto& s, const IoInfo& io, const Device* device) {
  std::vector<Value> items;
  for (const auto& t : s.tensor_values()) items.push_back(tensor_value(t, io, device));
  auto dt = to_dtype(io.onnx_type);
  return Value::sequence(items, dt ? *dt : DType::F32);
}

Value read_value(const fs::path& p, const IoInfo& io, const Device* device) {
  std::string bytes = read_bytes(p);
  if (io.kind == Value::Kind::Sequence) {
    ::onnx::SequenceProto s;
    if (!s.ParseFromString(bytes)) throw Error("cannot parse " + p.string());
    return sequence_of(s, io, device);
  }
  if (io.kind == Value::Kind::Optional) {
    ::onnx::OptionalProto o;
    if (!o.ParseFromString(bytes)) throw Error("cannot parse " + p.string());
    if (o.has_tensor_value()) return Value::optional({tensor_value(o.tensor_value(), io, device)});
    if (o.has_sequence_value())
      return Value::optional({sequence_of(o.sequence_value(), io, device)});
    return Value::optional({});
  }
  ::onnx::TensorProto t;
  if (!t.ParseFromString(bytes)) throw Error("cannot parse " + p.string());
  return tensor_value(t, io, device);
}

std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (int i = 0;; ++i) {
    fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    out.push_back(p);
  }
  return out;
}

// "" when `got` matches `want`: same shape and dtype, values within rtol 1e-3 + atol 1e-7 (NaN
// matching NaN, infinities exactly).
std::string compare_tensor(const TensorData& got, const TensorData& want) {
  if (got.shape() != want.shape()) {
    return "shape " + got.shape().to_string() + ", expected " + want.shape().to_string();
  }
  if (got.dtype() != want.dtype()) {
    return std::string("dtype ") + dtype_name(got.dtype()) + ", expected " +
           dtype_name(want.dtype());
  }
  std::vector<double> g = got.to_vec<double>(), w = want.to_vec<double>();
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i]) && std::isnan(g[i])) continue;
    if (g[i] == w[i]) continue;
    if (std::abs(g[i] - w[i]) <= 1e-7 + 1e-3 * std::abs(w[i])) continue;
    return "element " + std::to_string(i) + " is " + std::to_string(g[i]) + ", expected " +
           std::to_string(w[i]);
  }
  return "";
}

// The same for values: sequences and optionals element by element.
std::string compare(const Value& got, const Value& want) {
  if (got.kind() != want.kind()) return "a value of another kind";
  if (got.is_tensor()) return compare_tensor(got.data(), want.data());
  if (got.items().size() != want.items().size()) {
    return std::to_string(got.items().size()) + " elements, expected " +
           std::to_string(want.items().size());
  }
  for (size_t i = 0; i < got.items().size(); ++i) {
    std::string diff = compare(got.items()[i], want.items()[i]);
    if (!diff.empty()) return "element " + std::to_string(i) + ": " + diff;
  }
  return "";
}

// The CPU, or EMBER_ONNX_TEST_DEVICE (vulkan:0, cuda:0, cpu-ref), which then runs a sample.
Device test_device() {
  static const Device d = [] {
    std::string env = env_or("EMBER_ONNX_TEST_DEVICE", "");
    return env.empty() ? Device::cpu() : ::ember::testing::parse_test_device(env);
  }();
  return d;
}

CaseResult run_case(const fs::path& dir) {
  CaseResult r;
  r.name = dir.filename().string();
  auto start = std::chrono::steady_clock::now();
  try {
    ::onnx::ModelProto proto = read_model((dir / "model.onnx").string());
    for (const auto& n : proto.graph().node()) r.ops.insert(n.op_type());
    ImportOptions options;
    options.device = test_device();
    Model model = Model::from_proto(proto, r.name, options);
    fs::path data = dir / "test_data_set_0";
    std::vector<Value> inputs;
    // Optional inputs left out of the graph have no file; files beyond the graph's inputs are
    // not read.
    std::vector<fs::path> in_files = numbered(data, "input_");
    for (size_t i = 0; i < in_files.size() && i < model.inputs().size(); ++i) {
      inputs.push_back(read_value(in_files[i], model.inputs()[i], &options.device));
    }
    std::vector<Value> got = model.run_values(inputs);
    std::vector<fs::path> want = numbered(data, "output_");
    r.status = "passed";
    if (got.size() < want.size()) {
      r.status = "failed";
      r.message = std::to_string(got.size()) + " outputs, expected " + std::to_string(want.size());
    }
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
      std::string diff = compare(got[i], read_value(want[i], model.outputs()[i], nullptr));
      if (!diff.empty()) {
        r.status = "failed";
        r.message = "output " + std::to_string(i) + ": " + diff;
        break;
      }
    }
  } catch (const Error& e) {
    std::string msg = e.what();
    r.status = msg.find("unsupported construct") != std::string::npos ? "unsupported" : "failed";
    r.message = msg;
  } catch (const std::exception& e) {
    r.status = "failed";
    r.message = e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void write_results(const std::vector<CaseResult>& results, const std::string& path) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& r : results) {
    cases.push_back({{"name", r.name},
                     {"status", r.status},
                     {"ops", std::vector<std::string>(r.ops.begin(), r.ops.end())},
                     {"message", r.message},
                     {"seconds", r.seconds}});
  }
  nlohmann::json doc = {{"device", test_device().to_string() + ", EMBER_CPU_COMPILE=" +
                                       env_or("EMBER_CPU_COMPILE", "auto")},
                        {"supported_ops", Registry::instance().op_types()},
                        {"cases", cases}};
  std::ofstream(path) << doc.dump(1) << "\n";
}

TEST(OnnxNodeSuite, NinetyPercentOfSupportedCasesPass) {
  fs::path root = env_or("EMBER_ONNX_NODE_DIR", EMBER_ONNX_NODE_DIR);
  if (!fs::exists(root)) GTEST_SKIP() << "no ONNX node cases at " << root;
  std::vector<fs::path> dirs;
  std::string filter = env_or("EMBER_ONNX_CASE_FILTER", "");
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_directory() && e.path().filename().string().find(filter) != std::string::npos) {
      dirs.push_back(e.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  // Another device runs every 10th case (EMBER_ONNX_SAMPLE sets the stride): each case compiles
  // its own kernels, and a software Vulkan driver compiles slowly.
  int stride = std::stoi(env_or("EMBER_ONNX_SAMPLE", test_device() == Device::cpu() ? "1" : "10"));
  std::vector<fs::path> sample;
  for (size_t i = 0; i < dirs.size(); i += stride) sample.push_back(dirs[i]);
  dirs = sample;
  std::vector<CaseResult> results;
  int passed = 0, failed = 0, unsupported = 0;
  for (const auto& d : dirs) {
    results.push_back(run_case(d));
    const CaseResult& r = results.back();
    if (r.status == "passed") ++passed;
    if (r.status == "failed") ++failed;
    if (r.status == "unsupported") ++unsupported;
    if (std::getenv("EMBER_ONNX_VERBOSE")) {
      std::cout << r.status << " " << r.name << " (" << r.seconds << " s) " << r.message << "\n";
    }
  }
  // The run with every flush compiled (EMBER_CPU_COMPILE=always) keeps its own file.
  std::string out = env_or("EMBER_ONNX_RESULTS", EMBER_ONNX_RESULTS);
  if (!std::getenv("EMBER_ONNX_RESULTS")) {
    std::string device = test_device().to_string();
    std::replace(device.begin(), device.end(), ':', '_');
    if (test_device() != Device::cpu()) {
      out = out.substr(0, out.size() - 5) + "_" + device + ".json";
    } else if (env_or("EMBER_CPU_COMPILE", "auto") == "always") {
      out = out.substr(0, out.size() - 5) + "_compiled.json";
    }
  }
  write_results(results, out);
  std::cout << "onnx node cases: " << dirs.size() << " total, " << passed << " passed, " << failed
            << " failed, " << unsupported << " unsupported; results in " << out << "\n";
  ASSERT_GT(passed + failed, 0);
  double rate = static_cast<double>(passed) / (passed + failed);
  EXPECT_GE(rate, 0.9) << passed << " of " << passed + failed << " supported cases pass";
}

}  // namespace
}  // namespace ember::onnx_import
