// Configs: Burn's defaults, with_ builders, JSON round trips (in memory and through a file),
// missing fields and bad values.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;

template <class C>
void expect_round_trip(const C& c) {
  SCOPED_TRACE(C::config_name());
  C back = C::from_json(nlohmann::json::parse(c.to_json().dump()));
  EXPECT_TRUE(back == c) << c.to_string() << "\nread back as\n" << back.to_string();
}

TEST(Config, DefaultsAreBurns) {
  LinearConfig l(3, 4);
  EXPECT_TRUE(l.bias);
  EXPECT_EQ(l.initializer, Initializer::kaiming_uniform(1 / std::sqrt(3.0), false));
  EXPECT_EQ(BatchNormConfig(2).momentum, 0.1);
  EXPECT_EQ(BatchNormConfig(2).epsilon, 1e-5);
  EXPECT_EQ(LayerNormConfig(2).epsilon, 1e-5);
  EXPECT_TRUE(GroupNormConfig(1, 2).affine);
  EXPECT_TRUE(InstanceNormConfig(2).affine);
  EXPECT_EQ(EmbeddingConfig(3, 4).initializer, Initializer::normal(0, 1));
  EXPECT_EQ(LeakyReluConfig().negative_slope, 0.01);
  EXPECT_EQ(HardSigmoidConfig().alpha, 0.2);
  EXPECT_EQ(PReluConfig().alpha, 0.25);
  EXPECT_FALSE(SwiGluConfig(2, 2).bias);
  EXPECT_TRUE(CrossEntropyLossConfig().logits);
  EXPECT_FALSE(BinaryCrossEntropyLossConfig().logits);
}

TEST(Config, BuildersReturnChangedCopies) {
  LinearConfig a(3, 4);
  LinearConfig b = a.with_bias(false).with_d_output(7);
  EXPECT_TRUE(a.bias);
  EXPECT_FALSE(b.bias);
  EXPECT_EQ(b.d_output, 7);
  EXPECT_FALSE(a == b);
}

TEST(Config, JsonRoundTrips) {
  expect_round_trip(
      LinearConfig(3, 4).with_bias(false).with_initializer(Initializer::orthogonal(2)));
  expect_round_trip(BatchNormConfig(8).with_momentum(0.05));
  expect_round_trip(GroupNormConfig(2, 6).with_affine(false));
  expect_round_trip(EmbeddingConfig(10, 3));
  expect_round_trip(DropoutConfig(0.25));
  expect_round_trip(CrossEntropyLossConfig()
                        .with_pad_tokens(std::vector<int64_t>{0, 3})
                        .with_weights(std::vector<double>{1, 2.5})
                        .with_smoothing(0.1)
                        .with_reduction(Reduction::Sum));
  expect_round_trip(CrossEntropyLossConfig());
  expect_round_trip(PoissonNllLossConfig().with_full(true));
  expect_round_trip(SwiGluConfig(4, 8).with_bias(true));
  EXPECT_EQ(LinearConfig(3, 4).to_json().dump(),
            R"({"bias":true,"d_input":3,"d_output":4,"initializer":{"KaimingUniform":)"
            R"({"fan_out_only":false,"gain":0.5773502691896258}}})");
}

TEST(Config, SaveAndLoadAFile) {
  std::string path = ::testing::TempDir() + "/linear_config_" + std::to_string(getpid()) + ".json";
  LinearConfig c = LinearConfig(5, 6).with_initializer(Initializer::xavier_normal(1.5));
  c.save(path);
  EXPECT_TRUE(LinearConfig::load(path) == c);
  std::remove(path.c_str());
  testing::expect_error([&] { LinearConfig::load(path); }, {"LinearConfig", "cannot open"});
}

TEST(Config, MissingOrBadFieldsAreReported) {
  nlohmann::json j = LinearConfig(3, 4).to_json();
  j.erase("d_output");
  testing::expect_error([&] { LinearConfig::from_json(j); }, {"LinearConfig", "d_output"});
  j["d_output"] = "four";
  testing::expect_error([&] { LinearConfig::from_json(j); }, {"LinearConfig", "d_output"});
}

TEST(Config, BadValuesNameTheConfig) {
  testing::expect_error([] { LayerNormConfig(-1).init(dev()); }, {"LayerNormConfig", "d_model"});
  testing::expect_error([] { EmbeddingConfig(0, 3).init(dev()); },
                        {"EmbeddingConfig", "n_embedding"});
  testing::expect_error([] { CrossEntropyLossConfig().with_smoothing(1.5).init(); },
                        {"CrossEntropyLossConfig", "smoothing"});
  testing::expect_error([] { HuberLossConfig(0).init(); }, {"HuberLossConfig", "delta"});
  testing::expect_error([] { CeluConfig().with_alpha(0).init(); }, {"CeluConfig", "alpha"});
}

}  // namespace
}  // namespace ember::nn
