// Saving and loading modules: every layer kind round-trips bit-identically in full precision in
// each format, within f16/bf16 rounding in half precision (keeping f32 where half would lose the
// values), ids restored, lazy parameters never initialised, any device, and a failed load leaves
// the module as it was.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "tests/record/test_util.h"

namespace ember::record {
namespace {

using namespace testing;

struct Old {
  std::vector<nn::Linear> blocks;
  EMBER_MODULE(Old, blocks)
};
struct New {
  std::vector<nn::Linear> layers;
  EMBER_MODULE(New, layers)
};

class ModuleRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(ModuleRoundTrip, EveryLayerKindIsBitIdentical) {
  ScratchDir dir;
  Zoo saved = randomized(make_zoo());
  saved.layers[0] = saved.layers[0].no_grad();  // the frozen flag is the module's, not the file's
  const std::string path = dir.path(std::string("zoo") + GetParam());
  nn::save(saved, path);
  Zoo fresh = make_zoo();  // other ids, other values
  fresh.layers[0] = fresh.layers[0].no_grad();
  Zoo loaded = nn::load(fresh, path);
  expect_identical(saved, loaded);
  if (std::string(GetParam()) == ".ember") {
    EXPECT_EQ(load(path).metadata.at("ember.version"), "0.1.0");
    EXPECT_EQ(load(path).metadata.at("ember.module"), "Zoo");
  }
  // Only the final file remains: the temporary one was renamed.
  EXPECT_EQ(dir.files(), std::vector<std::string>{std::string("zoo") + GetParam()});
}

INSTANTIATE_TEST_SUITE_P(Formats, ModuleRoundTrip,
                         ::testing::Values(".ember", ".json", ".safetensors"));

TEST(ModuleRecord, CompressedNativeIsBitIdenticalAndSmallerForRepetitiveData) {
  ScratchDir dir;
  nn::Linear model = nn::LinearConfig(64, 64).init(dev());
  model.weight = model.weight.with_value(Tensor<2>::ones({64, 64}, dev()));
  SaveOptions options;
  options.compress = true;
  nn::save(model, dir.path("c.ember"), options);
  nn::save(model, dir.path("raw.ember"));
  EXPECT_LT(read_bytes(dir.path("c.ember")).size() * 4, read_bytes(dir.path("raw.ember")).size());
  expect_identical(model, nn::load(nn::LinearConfig(64, 64).init(dev()), dir.path("c.ember")));
}

// Half precision: values within the type's rounding of the f32 originals (a relative error of at
// most 2^-11 for f16, 2^-8 for bf16, or half f16's subnormal step, 2^-25, for a stray tiny
// value), the
// module's f32 dtype restored, and tensors the half type cannot hold kept exactly.
void expect_half_round_trip(Precision precision, double rel, const char* ext) {
  ScratchDir dir;
  Zoo saved = randomized(make_zoo());
  // Batch-norm variances far below f16's smallest normal (6.1e-5): f16 would flush them.
  saved.bn.running_var.update(Tensor<1>::from_data({1e-7f, 2e-6f, 3e-8f, 1.5e-5f}, dev()));
  SaveOptions options;
  options.precision = precision;
  const std::string path = dir.path(std::string("half") + ext);
  nn::save(saved, path, options);
  Zoo loaded = nn::load(make_zoo(), path);
  auto fa = flatten(saved), fb = flatten(loaded);
  ASSERT_EQ(fa.size(), fb.size());
  for (size_t i = 0; i < fa.size(); ++i) {
    EXPECT_EQ(fb[i].data.dtype(), DType::F32) << fa[i].path;
    auto a = fa[i].data.to_vec<double>(), b = fb[i].data.to_vec<double>();
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_LE(std::abs(a[k] - b[k]), rel * std::abs(a[k]) + std::ldexp(1.0, -25))
          << fa[i].path << "[" << k << "]";
    }
  }
  if (precision == Precision::half) {
    EXPECT_EQ(loaded.bn.running_var.value().to_data(), saved.bn.running_var.value().to_data());
  }
}

TEST(ModuleRecord, HalfPrecisionKeepsF32WhereF16WouldUnderflow) {
  expect_half_round_trip(Precision::half, std::ldexp(1.0, -11), ".ember");
  expect_half_round_trip(Precision::half, std::ldexp(1.0, -11), ".safetensors");
}

TEST(ModuleRecord, Bf16PrecisionWithinBf16Rounding) {
  expect_half_round_trip(Precision::bf16, std::ldexp(1.0, -8), ".ember");
  expect_half_round_trip(Precision::bf16, std::ldexp(1.0, -8), ".json");
}

TEST(ModuleRecord, HalfPrecisionFileIsAboutHalfTheSize) {
  ScratchDir dir;
  nn::Linear model = randomized(nn::LinearConfig(128, 128).init(dev()));
  SaveOptions half;
  half.precision = Precision::half;
  nn::save(model, dir.path("f32.safetensors"));
  nn::save(model, dir.path("f16.safetensors"), half);
  const double ratio = double(read_bytes(dir.path("f16.safetensors")).size()) /
                       double(read_bytes(dir.path("f32.safetensors")).size());
  EXPECT_GT(ratio, 0.45);
  EXPECT_LT(ratio, 0.55);
}

TEST(ModuleRecord, LoadIntoLazyModuleNeverInitialises) {
  ScratchDir dir;
  nn::Linear saved = randomized(nn::LinearConfig(4, 3).init(dev()));
  nn::save(saved, dir.path("m.ember"));
  auto calls = std::make_shared<std::atomic<int>>(0);
  nn::Linear lazy;
  lazy.weight =
      nn::Param<Tensor<2>>::lazy(nn::ParamId(), Shape{4, 3}, dev(), true, [calls](const Device& d) {
        ++*calls;
        return Tensor<2>::zeros({4, 3}, d);
      });
  lazy.bias =
      nn::Param<Tensor<1>>::lazy(nn::ParamId(), Shape{3}, dev(), true, [calls](const Device& d) {
        ++*calls;
        return Tensor<1>::zeros({3}, d);
      });
  nn::Linear loaded = nn::load(lazy, dir.path("m.ember"));
  expect_identical(saved, loaded);
  EXPECT_EQ(calls->load(), 0);
  EXPECT_FALSE(lazy.weight.is_initialized());
  // A module made by a config is lazy too: loading it leaves the config's init undone.
  nn::Linear from_config = nn::LinearConfig(4, 3).init(dev());
  nn::Linear loaded2 = nn::load(from_config, dir.path("m.ember"));
  EXPECT_FALSE(from_config.weight.is_initialized());
  expect_identical(saved, loaded2);
}

TEST(ModuleRecord, LoadsOntoTheRequestedDevice) {
  ScratchDir dir;
  nn::Linear saved = randomized(nn::LinearConfig(4, 3).init(Device::cpu()));
  nn::save(saved, dir.path("m.ember"));
  LoadOptions options;
  options.device = dev();
  nn::Linear loaded =
      nn::load(nn::LinearConfig(4, 3).init(Device::cpu()), dir.path("m.ember"), options);
  EXPECT_EQ(loaded.weight.device(), dev());
  EXPECT_EQ(loaded.weight.val().device(), dev());
  EXPECT_EQ(loaded.bias->val().device(), dev());
  expect_identical(saved, loaded.to_device(Device::cpu()));
}

TEST(ModuleRecord, ShapeMismatchLeavesTheModuleAsItWasAndSaysHowToFix) {
  ScratchDir dir;
  nn::Linear saved = randomized(nn::LinearConfig(4, 3).init(dev()));
  nn::save(saved, dir.path("m.ember"));
  nn::Linear other = randomized(nn::LinearConfig(3, 4).init(dev()));
  const auto before = flatten(other);
  record::LoadReport report;
  expect_error([&] { nn::load(other, dir.path("m.ember"), {}, &report); },
               {dir.path("m.ember"), "weight", "[4, 3]", "[3, 4]", "PyTorch", "adapter"});
  ASSERT_EQ(report.mismatched.size(), 2u);
  EXPECT_EQ(report.mismatched[1].path, "bias");
  auto after = flatten(other);
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].id, after[i].id);
    EXPECT_TRUE(before[i].data == after[i].data);
  }
}

TEST(ModuleRecord, MissingAndUnusedTensorsAreReported) {
  ScratchDir dir;
  nn::Linear no_bias = randomized(nn::LinearConfig(4, 3).with_bias(false).init(dev()));
  nn::save(no_bias, dir.path("w.ember"));
  nn::Linear with_bias = randomized(nn::LinearConfig(4, 3).init(dev()));
  expect_error([&] { nn::load(with_bias, dir.path("w.ember")); },
               {"w.ember", "missing", "'bias'", "allow_partial"});
  LoadOptions partial;
  partial.allow_partial = true;
  LoadReport report;
  nn::Linear loaded = nn::load(with_bias, dir.path("w.ember"), partial, &report);
  EXPECT_EQ(report.missing, std::vector<std::string>{"bias"});
  EXPECT_EQ(report.loaded, std::vector<std::string>{"weight"});
  EXPECT_EQ(loaded.weight.val().to_data(), no_bias.weight.val().to_data());
  EXPECT_EQ(loaded.bias->val().to_data(), with_bias.bias->val().to_data());
  EXPECT_EQ(loaded.bias->id(), with_bias.bias->id());
  // The other way round: the file's bias has no place in a bias-free module.
  nn::save(with_bias, dir.path("wb.ember"));
  expect_error([&] { nn::load(no_bias, dir.path("wb.ember")); }, {"not the module", "'bias'"});
  LoadOptions unused;
  unused.allow_unused = true;
  LoadReport r2;
  nn::load(no_bias, dir.path("wb.ember"), unused, &r2);
  EXPECT_EQ(r2.unused, std::vector<std::string>{"bias"});
}

TEST(ModuleRecord, KeysAreRemappedByRegularExpressions) {
  ScratchDir dir;
  Old old{{randomized(nn::LinearConfig(2, 3).init(dev())),
           randomized(nn::LinearConfig(3, 1).init(dev()))}};
  nn::save(old, dir.path("old.safetensors"));
  New fresh{{nn::LinearConfig(2, 3).init(dev()), nn::LinearConfig(3, 1).init(dev())}};
  LoadOptions options;
  options.remap = {{"^blocks\\.([0-9]+)\\.", "layers.$1."}};
  New loaded = nn::load(fresh, dir.path("old.safetensors"), options);
  EXPECT_EQ(loaded.layers[1].weight.val().to_data(), old.blocks[1].weight.val().to_data());
  EXPECT_EQ(loaded.layers[0].bias->id(), old.blocks[0].bias->id());
  // A key remapped to nothing is dropped.
  options.remap.push_back({"^layers\\.1\\.bias$", ""});
  options.allow_partial = true;
  LoadReport report;
  nn::load(fresh, dir.path("old.safetensors"), options, &report);
  EXPECT_EQ(report.missing, std::vector<std::string>{"layers.1.bias"});
  options.remap = {{"(", "x"}};
  expect_error([&] { nn::load(fresh, dir.path("old.safetensors"), options); },
               {"old.safetensors", "bad remap pattern"});
}

TEST(ModuleRecord, UnknownExtensionAndMissingFileAreErrors) {
  ScratchDir dir;
  nn::Linear m = nn::LinearConfig(2, 2).init(dev());
  expect_error([&] { nn::save(m, dir.path("m.bin")); }, {"m.bin", "extension"});
  expect_error([&] { nn::load(m, dir.path("absent.ember")); }, {"absent.ember", "cannot open"});
  SaveOptions as_json;
  as_json.format = Format::json;
  nn::save(m, dir.path("m.bin"), as_json);
  LoadOptions read_json;
  read_json.format = Format::json;
  expect_identical(m, nn::load(nn::LinearConfig(2, 2).init(dev()), dir.path("m.bin"), read_json));
}

TEST(ModuleRecord, FailedSaveLeavesThePreviousCheckpoint) {
  ScratchDir dir;
  nn::Linear first = randomized(nn::LinearConfig(2, 2).init(dev()));
  nn::save(first, dir.path("m.ember"));
  const auto bytes = read_bytes(dir.path("m.ember"));
  // Saving into a directory that does not exist fails before anything is renamed.
  expect_error([&] { nn::save(first, dir.path("nope/m.ember")); },
               {"nope/m.ember", "cannot create"});
  EXPECT_EQ(read_bytes(dir.path("m.ember")), bytes);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"m.ember"});
}

}  // namespace
}  // namespace ember::record
