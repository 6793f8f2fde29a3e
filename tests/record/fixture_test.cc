// Files made by PyTorch and the safetensors package (tests/record/make_fixtures.py), checked value
// by value against the closed forms they were filled with: every dtype, strided and offset views,
// nested dicts, trained models whose outputs Ember reproduces, a width-reduced torchvision
// ResNet-18 loaded through key remapping, and hostile files refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/record/fixtures.h"
#include "tests/record/test_util.h"

namespace ember::record {
namespace {

using namespace testing;

std::vector<double> values(const Entry& e) { return e.to_data().to_vec<double>(); }

const Entry& entry(const Record& r, const std::string& path) {
  const Entry* e = r.find(path);
  if (!e) throw Error("no entry " + path);
  return *e;
}

// The fixtures' dtype dict, as make_fixtures.py's dtype_tensors() made it.
void expect_dtype_tensors(const Record& r) {
  const Entry& f32 = entry(r, "f32");
  EXPECT_EQ(f32.dtype(), DType::F32);
  EXPECT_EQ(f32.shape(), (Shape{3, 4}));
  EXPECT_EQ(values(f32), as_f32(formula(12, 0)));
  const Entry& f16 = entry(r, "f16");
  EXPECT_EQ(f16.dtype(), DType::F16);
  EXPECT_EQ(f16.shape(), (Shape{2, 3}));
  EXPECT_EQ(f16.to_data(), TensorData(formula(6, 1), Shape{2, 3}).convert(DType::F16));
  const Entry& bf16 = entry(r, "bf16");
  EXPECT_EQ(bf16.dtype(), DType::BF16);
  EXPECT_EQ(bf16.to_data(), TensorData(formula(4, 2), Shape{4}).convert(DType::BF16));
  const Entry& f64 = entry(r, "f64");
  EXPECT_EQ(f64.dtype(), DType::F64);
  EXPECT_EQ(values(f64), formula(5, 3));
  const Entry& i32 = entry(r, "i32");
  EXPECT_EQ(i32.dtype(), DType::I32);
  EXPECT_EQ(i32.shape(), (Shape{3, 2}));
  EXPECT_EQ(i32.to_data().to_vec<int64_t>(), (std::vector<int64_t>{-3, -2, -1, 0, 1, 2}));
  const Entry& i64 = entry(r, "i64");
  EXPECT_EQ(i64.dtype(), DType::I64);
  EXPECT_EQ(i64.to_data().to_vec<int64_t>(), (std::vector<int64_t>{int64_t(1) << 40, -5, 7}));
  const Entry& u8 = entry(r, "u8");
  EXPECT_EQ(u8.dtype(), DType::U8);
  EXPECT_EQ(u8.to_data().to_vec<int64_t>(), (std::vector<int64_t>{0, 1, 255}));
  const Entry& b = entry(r, "boolean");
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.to_data().to_vec<bool>(), (std::vector<bool>{true, false, true}));
}

TEST(Safetensors, EveryDtypeFromThePythonPackage) {
  Record r = load(fixture("dtypes.safetensors"));
  EXPECT_EQ(r.entries.size(), 8u);
  expect_dtype_tensors(r);
  EXPECT_EQ(r.metadata.at("source"), "make_fixtures.py");
}

TEST(Safetensors, DtypeEmberLacksIsAnErrorNamingTheTensor) {
  expect_error([] { load(fixture("int8.safetensors")); },
               {"int8.safetensors", "'int8'", "I8", "not supported"});
}

// Ember's file of the Python file's tensors reads back the same; with EMBER_RECORD_EXPORT_DIR
// set it is left there for `make_fixtures.py --check-ember` (the safetensors package reads it).
TEST(Safetensors, WritesWhatPythonReads) {
  ScratchDir dir;
  Record r = load(fixture("dtypes.safetensors"));
  save(r, dir.path("ember.safetensors"));
  Record back = load(dir.path("ember.safetensors"));
  expect_dtype_tensors(back);
  if (const char* out = std::getenv("EMBER_RECORD_EXPORT_DIR")) {
    std::filesystem::copy_file(dir.path("ember.safetensors"),
                               std::string(out) + "/ember_dtypes.safetensors",
                               std::filesystem::copy_options::overwrite_existing);
  }
  // The header is 8-byte aligned, as the package writes it.
  auto bytes = read_bytes(dir.path("ember.safetensors"));
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
}

TEST(PyTorch, EveryDtypeStridedOffsetAndNestedTensors) {
  Record r = load(fixture("dtypes.pt"));
  expect_dtype_tensors(r);
  // formula((3, 4), 5).t(): element [i][j] is the original's [j][i].
  const Entry& t = entry(r, "transposed");
  EXPECT_EQ(t.shape(), (Shape{4, 3}));
  std::vector<double> want;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) want.push_back(static_cast<float>(formula_value(j * 4 + i, 5)));
  EXPECT_EQ(values(t), want);
  // base[5:11] of formula((20,), 4), sharing base's storage.
  want.clear();
  for (int i = 5; i < 11; ++i) want.push_back(static_cast<float>(formula_value(i, 4)));
  EXPECT_EQ(values(entry(r, "offset")), want);
  EXPECT_EQ(values(entry(r, "base")), as_f32(formula(20, 4)));
  // formula((6, 4), 6)[::2, 1::2]: [i][j] is the original's [2i][1 + 2j].
  want.clear();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      want.push_back(static_cast<float>(formula_value(2 * i * 4 + 1 + 2 * j, 6)));
  EXPECT_EQ(entry(r, "strided").shape(), (Shape{3, 2}));
  EXPECT_EQ(values(entry(r, "strided")), want);
  EXPECT_EQ(values(entry(r, "param")), as_f32(formula(4, 7)));
  EXPECT_EQ(values(entry(r, "nested.inner.x")), as_f32(formula(3, 8)));
  EXPECT_EQ(values(entry(r, "nested.list.0")), as_f32(formula(2, 9)));
  EXPECT_EQ(values(entry(r, "nested.list.1")), as_f32(formula(1, 10)));
  EXPECT_EQ(r.metadata.at("pytorch.epoch"), "3");
  EXPECT_EQ(r.metadata.at("pytorch.name"), "fixture");
  EXPECT_EQ(r.entries.size(), 16u);
}

struct TorchMlp {
  nn::Linear fc1, fc2;
  Tensor<2> forward(const Tensor<2>& x) const {
    return fc2.forward(activation::relu(fc1.forward(x)));
  }
  EMBER_MODULE(TorchMlp, fc1, fc2)
};

struct TorchCnn {
  nn::Conv2d conv;
  nn::BatchNorm bn;
  nn::Linear fc;
  Tensor<2> forward(const Tensor<4>& x) const {
    return fc.forward(activation::relu(bn.forward(conv.forward(x))).flatten<2>(1, 3));
  }
  EMBER_MODULE(TorchCnn, conv, bn, fc)
};

void expect_outputs(const Tensor<2>& got, const Entry& want) {
  ASSERT_EQ(got.shape(), want.shape());
  auto g = got.to_data().to_vec<double>(), w = values(want);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-5) << i;
}

TEST(PyTorch, TrainedMlpReproducesTorchOutputs) {
  TorchMlp fresh{nn::LinearConfig(4, 8).init(dev()), nn::LinearConfig(8, 3).init(dev())};
  TorchMlp mlp = nn::load(fresh, fixture("mlp.pt"));  // the Linear adapter: .pt's default
  Record io = load(fixture("mlp_io.safetensors"));
  auto x = Tensor<2>::from_data(entry(io, "x").to_data(), dev());
  expect_outputs(mlp.valid().forward(x), entry(io, "y"));
  // Without the adapter the [out, in] weights do not fit, and the error says what to do.
  LoadOptions none;
  none.adapter = Adapter::none;
  expect_error([&] { nn::load(fresh, fixture("mlp.pt"), none); },
               {"mlp.pt", "fc1.weight", "[8, 4]", "[4, 8]", "Adapter::pytorch"});
}

TEST(PyTorch, TrainedCnnWithBatchNormReproducesTorchOutputs) {
  TorchCnn fresh{nn::Conv2dConfig({2, 3}, {3, 3})
                     .with_padding(nn::PaddingConfig2d::explicit_({1, 1}))
                     .init(dev()),
                 nn::BatchNormConfig(3).init(dev()), nn::LinearConfig(48, 2).init(dev())};
  // PyTorch's batch norm counts its batches; Ember's has no such tensor.
  expect_error([&] { nn::load(fresh, fixture("cnn.pt")); },
               {"cnn.pt", "bn.num_batches_tracked", "not the module", "remap"});
  LoadOptions options;
  options.remap = {{"\\.num_batches_tracked$", ""}};
  TorchCnn cnn = nn::load(fresh, fixture("cnn.pt"), options);
  Record io = load(fixture("cnn_io.safetensors"));
  auto x = Tensor<4>::from_data(entry(io, "x").to_data(), dev());
  expect_outputs(cnn.valid().forward(x), entry(io, "y"));
}

// ResNet-18 with Burn-style names, to be filled from torchvision's keys through remapping.
struct Downsample {
  nn::Conv2d conv;
  nn::BatchNorm norm;
  EMBER_MODULE(Downsample, conv, norm)
};
struct BasicBlock {
  nn::Conv2d conv1;
  nn::BatchNorm norm1;
  nn::Conv2d conv2;
  nn::BatchNorm norm2;
  std::optional<Downsample> downsample;
  EMBER_MODULE(BasicBlock, conv1, norm1, conv2, norm2, downsample)
};
struct Stage {
  std::vector<BasicBlock> blocks;
  EMBER_MODULE(Stage, blocks)
};
struct Stem {
  nn::Conv2d conv;
  nn::BatchNorm norm;
  EMBER_MODULE(Stem, conv, norm)
};
struct ResNet {
  Stem stem;
  std::vector<Stage> stages;
  nn::Linear head;
  EMBER_MODULE(ResNet, stem, stages, head)
};

nn::Conv2d conv(int64_t in, int64_t out, int64_t k) {
  return nn::Conv2dConfig({in, out}, {k, k}).with_bias(false).init(dev());
}

ResNet resnet18(int64_t w) {
  ResNet net{{conv(3, w, 7), nn::BatchNormConfig(w).init(dev())}, {}, {}};
  int64_t in = w;
  for (int s = 0; s < 4; ++s) {
    const int64_t c = w << s;
    Stage stage;
    for (int b = 0; b < 2; ++b) {
      const int64_t first = b == 0 ? in : c;
      BasicBlock block{conv(first, c, 3), nn::BatchNormConfig(c).init(dev()), conv(c, c, 3),
                       nn::BatchNormConfig(c).init(dev()), std::nullopt};
      if (b == 0 && s > 0)
        block.downsample = Downsample{conv(first, c, 1), nn::BatchNormConfig(c).init(dev())};
      stage.blocks.push_back(std::move(block));
    }
    net.stages.push_back(std::move(stage));
    in = c;
  }
  net.head = nn::LinearConfig(8 * w, 10).init(dev());
  return net;
}

// torchvision's key order (make_fixtures.py's resnet18_state_dict): formula k is the k-th key.
struct TorchKey {
  std::string key, ember;
  Shape shape;  // PyTorch's
};

std::vector<TorchKey> resnet18_keys(int64_t w) {
  std::vector<TorchKey> out = {{"conv1.weight", "stem.conv.weight", Shape{w, 3, 7, 7}}};
  auto bn = [&](const std::string& t, const std::string& e, int64_t c) {
    out.push_back({t + ".weight", e + ".gamma", Shape{c}});
    out.push_back({t + ".bias", e + ".beta", Shape{c}});
    out.push_back({t + ".running_mean", e + ".running_mean", Shape{c}});
    out.push_back({t + ".running_var", e + ".running_var", Shape{c}});
    out.push_back({t + ".num_batches_tracked", "", Shape{}});
  };
  bn("bn1", "stem.norm", w);
  int64_t in = w;
  for (int s = 0; s < 4; ++s) {
    const int64_t c = w << s;
    for (int b = 0; b < 2; ++b) {
      const std::string t = "layer" + std::to_string(s + 1) + "." + std::to_string(b);
      const std::string e = "stages." + std::to_string(s) + ".blocks." + std::to_string(b);
      const int64_t first = b == 0 ? in : c;
      out.push_back({t + ".conv1.weight", e + ".conv1.weight", Shape{c, first, 3, 3}});
      bn(t + ".bn1", e + ".norm1", c);
      out.push_back({t + ".conv2.weight", e + ".conv2.weight", Shape{c, c, 3, 3}});
      bn(t + ".bn2", e + ".norm2", c);
      if (b == 0 && s > 0) {
        out.push_back(
            {t + ".downsample.0.weight", e + ".downsample.conv.weight", Shape{c, first, 1, 1}});
        bn(t + ".downsample.1", e + ".downsample.norm", c);
      }
    }
    in = c;
  }
  out.push_back({"fc.weight", "head.weight", Shape{10, 8 * w}});
  out.push_back({"fc.bias", "head.bias", Shape{10}});
  return out;
}

TEST(PyTorch, ResNet18StateDictLoadsThroughRemapping) {
  LoadOptions options;
  options.remap = {{"^conv1\\.", "stem.conv."},
                   {"^bn1\\.", "stem.norm."},
                   {"^layer1\\.", "stages.0.blocks."},
                   {"^layer2\\.", "stages.1.blocks."},
                   {"^layer3\\.", "stages.2.blocks."},
                   {"^layer4\\.", "stages.3.blocks."},
                   {"\\.bn([12])\\.", ".norm$1."},
                   {"\\.downsample\\.0\\.", ".downsample.conv."},
                   {"\\.downsample\\.1\\.", ".downsample.norm."},
                   {"^fc\\.", "head."},
                   {"\\.num_batches_tracked$", ""}};
  LoadReport report;
  ResNet net = nn::load(resnet18(2), fixture("resnet18_w2.pt"), options, &report);
  EXPECT_TRUE(report.complete()) << report.to_string();
  std::map<std::string, TensorData> got;
  nn::visit(net, [&](const std::string& path, const auto& p) {
    if constexpr (nn::is_param_v<std::decay_t<decltype(p)>>) {
      got[path] = p.val().to_data();
    } else {
      got[path] = p.value().to_data();
    }
  });
  const auto keys = resnet18_keys(2);
  size_t checked = 0;
  for (size_t k = 0; k < keys.size(); ++k) {
    const TorchKey& t = keys[k];
    if (t.ember.empty()) continue;
    ASSERT_TRUE(got.count(t.ember)) << t.ember;
    std::vector<double> want = as_f32(formula(t.shape.numel(), static_cast<int>(k)));
    if (t.key.find("running_var") != std::string::npos) {
      for (double& v : want) v = static_cast<float>(std::abs(v) + 0.5f);
    }
    if (t.key == "fc.weight") {  // Ember's Linear weight is PyTorch's transposed
      std::vector<double> tr(want.size());
      for (int64_t o = 0; o < 10; ++o)
        for (int64_t i = 0; i < 16; ++i) tr[i * 10 + o] = want[o * 16 + i];
      want = tr;
    }
    EXPECT_EQ(got[t.ember].to_vec<double>(), want) << t.key << " -> " << t.ember;
    ++checked;
  }
  EXPECT_EQ(checked, got.size());
  EXPECT_EQ(checked, 102u);
}

TEST(PyTorch, PickledCodeIsRefusedNeverRun) {
  std::filesystem::remove("/tmp/ember_pwned");
  expect_error([] { load(fixture("evil_global.pt")); },
               {"evil_global.pt", "refuses global", "system", "state_dict"});
  EXPECT_FALSE(std::filesystem::exists("/tmp/ember_pwned"));
}

TEST(PyTorch, StorageShorterThanItsTensorIsAnError) {
  expect_error([] { load(fixture("short_storage.pt")); },
               {"short_storage.pt", "'w'", "storage '0' holds 8 bytes", "need 16"});
}

TEST(PyTorch, EmberDoesNotWritePyTorchFiles) {
  ScratchDir dir;
  expect_error([&] { save(Record{}, dir.path("m.pt")); }, {"m.pt", "not PyTorch"});
}

}  // namespace
}  // namespace ember::record
