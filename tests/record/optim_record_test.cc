// Optimizer state and scheduler positions: a run saved after k steps and resumed from the files
// continues bit-identically (full precision) with the run that never stopped, for every rule;
// files of another rule or a corrupt state are refused, leaving the optimizer as it was.
#include <gtest/gtest.h>

#include <cmath>

#include "optim/optim.h"
#include "optim/record.h"
#include "tests/record/test_util.h"

namespace ember::record {
namespace {

using namespace testing;

struct Net {
  nn::Linear fc1;
  nn::Linear fc2;
  EMBER_MODULE(Net, fc1, fc2)
};

Net make_net() {
  return randomized(Net{nn::LinearConfig(4, 5).init(dev()), nn::LinearConfig(5, 3).init(dev())},
                    0.5);
}

optim::GradientsParams grads_of(const Net& net, int step) {
  auto x = Tensor<2>::random({6, 4}, Distribution::normal(0, 1), dev());
  // A fixed batch per step (uploaded from host values, not drawn: both runs see the same).
  std::vector<float> xs(24), ys(18);
  for (int i = 0; i < 24; ++i) xs[i] = std::sin(0.7f * i + step);
  for (int i = 0; i < 18; ++i) ys[i] = std::cos(0.3f * i - step);
  x = Tensor<2>::from_data(TensorData(xs, Shape{6, 4}), dev());
  auto y = Tensor<2>::from_data(TensorData(ys, Shape{6, 3}), dev());
  auto d = net.fc2.forward(net.fc1.forward(x).tanh()) - y;
  return optim::GradientsParams::from_grads((d * d).mean().backward(), net);
}

template <class Opt>
void expect_resume_is_identical(Opt make, const char* ext) {
  ScratchDir dir;
  Net net = make_net();
  auto opt = make();
  for (int k = 0; k < 3; ++k) net = opt.step(0.01, net, grads_of(net, k));
  nn::save(net, dir.path(std::string("net") + ext));
  optim::save(opt, dir.path(std::string("opt") + ext));
  Net straight = net;
  for (int k = 3; k < 6; ++k) straight = opt.step(0.01, straight, grads_of(straight, k));

  Net resumed = nn::load(make_net(), dir.path(std::string("net") + ext));
  auto fresh = make();
  optim::load(fresh, dir.path(std::string("opt") + ext));
  EXPECT_EQ(fresh.num_states(), 4u);
  for (int k = 3; k < 6; ++k) resumed = fresh.step(0.01, resumed, grads_of(resumed, k));
  expect_identical(straight, resumed);
}

TEST(OptimRecord, AdamResumesBitIdentically) {
  for (const char* ext : {".ember", ".json", ".safetensors"}) {
    SCOPED_TRACE(ext);
    expect_resume_is_identical([] { return optim::AdamConfig().init(); }, ext);
  }
}

TEST(OptimRecord, EveryRuleResumesBitIdentically) {
  expect_resume_is_identical([] { return optim::AdamConfig().with_amsgrad(true).init(); },
                             ".ember");
  expect_resume_is_identical([] { return optim::AdamWConfig().init(); }, ".ember");
  expect_resume_is_identical(
      [] { return optim::SgdConfig().with_momentum(optim::MomentumConfig()).init(); }, ".ember");
  expect_resume_is_identical([] { return optim::SgdConfig().init(); }, ".ember");
  expect_resume_is_identical([] { return optim::AdaGradConfig().init(); }, ".ember");
  expect_resume_is_identical(
      [] { return optim::RmsPropConfig().with_centered(true).with_momentum(0.9).init(); },
      ".ember");
  expect_resume_is_identical([] { return optim::LionConfig().init(); }, ".ember");
  expect_resume_is_identical([] { return optim::MuonConfig().init(); }, ".ember");
}

TEST(OptimRecord, AnotherRulesStateIsRefusedAndTheOptimizerKeepsItsOwn) {
  ScratchDir dir;
  Net net = make_net();
  optim::Adam adam = optim::AdamConfig().init();
  net = adam.step(0.01, net, grads_of(net, 0));
  optim::save(adam, dir.path("adam.ember"));
  optim::Sgd sgd = optim::SgdConfig().with_momentum(optim::MomentumConfig()).init();
  net = sgd.step(0.01, net, grads_of(net, 0));
  expect_error([&] { optim::load(sgd, dir.path("adam.ember")); },
               {"adam.ember", "Adam state, not Sgd"});
  EXPECT_EQ(sgd.num_states(), 4u);
  // A module record is not optimizer state either.
  nn::save(net, dir.path("net.ember"));
  expect_error([&] { optim::load(adam, dir.path("net.ember")); }, {"net.ember", "no optimizer"});
  EXPECT_EQ(adam.num_states(), 4u);
}

TEST(OptimRecord, HalfPrecisionStateIsWithinRoundingAndKeepsTinySecondMoments) {
  ScratchDir dir;
  // First moments of ordinary size; second moments (0.001 g^2) below f16's smallest normal.
  const std::vector<float> m = {0.3f, -1.7f, 0.0123f, 250.5f, -0.5f, 3.25f};
  const std::vector<float> v = {1e-7f, 4e-9f, 2.5e-5f, 3e-10f, 6e-6f, 1.2e-8f};
  optim::detail::AdamMoments state;
  state.m = Tensor<2>::from_data(TensorData(m, Shape{2, 3}), dev()).raw();
  state.v = Tensor<2>::from_data(TensorData(v, Shape{2, 3}), dev()).raw();
  state.t = 7;
  const nn::ParamId id;
  optim::Adam adam = optim::AdamConfig().init();
  adam.load_states({{id, state}});
  SaveOptions half;
  half.precision = Precision::half;
  optim::save(adam, dir.path("adam.ember"), half);
  optim::Adam loaded = optim::AdamConfig().init();
  optim::load(loaded, dir.path("adam.ember"));
  const auto& got = loaded.states().at(id);
  EXPECT_EQ(got.t, 7);
  EXPECT_EQ(got.m.dtype(), DType::F32);
  auto gm = got.m.to_data().to_vec<float>();
  for (size_t i = 0; i < m.size(); ++i) {
    EXPECT_LE(std::abs(gm[i] - m[i]), std::ldexp(std::abs(m[i]), -11)) << i;
  }
  EXPECT_NE(gm, m);                               // really stored as f16: 0.3 is not a half
  EXPECT_EQ(got.v.to_data().to_vec<float>(), v);  // kept in f32, exactly
  EXPECT_FALSE(got.v_max.has_value());
}

TEST(OptimRecord, SchedulersResumeWhereTheyWere) {
  ScratchDir dir;
  auto make = [] {
    std::vector<std::unique_ptr<optim::LrScheduler>> parts;
    parts.push_back(std::make_unique<optim::StepLrScheduler>(0.1, 2, 0.5));
    parts.push_back(std::make_unique<optim::WarmUpLrScheduler>(
        std::make_unique<optim::CosineAnnealingLrScheduler>(1.0, 10, 0.1), 3));
    parts.push_back(std::make_unique<optim::NoamLrScheduler>(1.0, 4, 16));
    parts.push_back(std::make_unique<optim::LinearLrScheduler>(1.0, 0.5, 8));
    parts.push_back(std::make_unique<optim::ExponentialLrScheduler>(1.0, 0.9));
    parts.push_back(std::make_unique<optim::ConstantLr>(2.0));
    return optim::ComposedLrScheduler(std::move(parts));
  };
  optim::ComposedLrScheduler s = make();
  for (int i = 0; i < 5; ++i) s.step();
  optim::save_scheduler(s, dir.path("lr.json"));
  optim::ComposedLrScheduler resumed = make();
  optim::load_scheduler(resumed, dir.path("lr.json"));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(resumed.step(), s.step()) << i;

  optim::ReduceLrOnPlateau plateau(1.0, {.patience = 1});
  for (double m : {1.0, 0.9, 0.95, 0.96}) plateau.step(m);
  optim::save_scheduler(plateau, dir.path("plateau.json"));
  optim::ReduceLrOnPlateau back(1.0, {.patience = 1});
  optim::load_scheduler(back, dir.path("plateau.json"));
  EXPECT_EQ(back.lr(), plateau.lr());
  for (double m : {0.97, 0.5, 0.6, 0.7, 0.8}) EXPECT_EQ(back.step(m), plateau.step(m));

  // A state for another shape of scheduler is refused, naming the file.
  optim::StepLrScheduler step(0.1, 2, 0.5);
  expect_error([&] { optim::load_scheduler(step, dir.path("lr.json")); },
               {"lr.json", "StepLrScheduler", "iter"});
  expect_error([&] { optim::load_scheduler(back, dir.path("lr.json")); },
               {"lr.json", "no ReduceLrOnPlateau state"});
}

}  // namespace
}  // namespace ember::record
