// The LSTM recurrence (ir::OpKind::Lstm) on the test device against the CPU reference
// (runtime/cpu/lstm.cc): the persistent kernel on CUDA (kernels/rnn), the step-by-step
// composite elsewhere. Used as a training step uses it: two stacked layers (the second
// reversed) whose input parts come from matmuls, forward and backward in one flush with the
// states still held, a loss that reads every packed column, the last states, and a state held
// from an earlier flush (a strided view) as the next call's initial state.
#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "frontend/module.h"
#include "kernels/rnn/family.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::host_uniform;

struct Case {
  int64_t batch, steps, input, hidden;
};

std::vector<RawTensor> training_step(const Device& dev, const Case& c, uint32_t seed) {
  const int64_t h = c.hidden;
  auto x = Tensor<3>::from_data(host_uniform({c.batch, c.steps, c.input}, seed), dev);
  // PyTorch's initial range, 1 / sqrt(hidden): larger recurrent weights make the gradients
  // of long sequences grow from step to step, and float sums in other orders then differ
  // by more than rounding.
  const double bound = 1 / std::sqrt(static_cast<double>(h));
  auto param = [&](const Shape& s, uint32_t k) {
    return Tensor<2>::from_data(host_uniform(s, seed + k, -bound, bound), dev).require_grad();
  };
  auto w_ih1 = param({c.input, 4 * h}, 1), w_hh1 = param({h, 4 * h}, 2);
  auto w_ih2 = param({h, 4 * h}, 3), w_hh2 = param({h, 4 * h}, 4);
  auto h0 = Tensor<2>::from_data(host_uniform({c.batch, h}, seed + 5, -1, 1), dev).require_grad();
  auto c0 = Tensor<2>::from_data(host_uniform({c.batch, h}, seed + 6, -1, 1), dev).require_grad();
  auto input_part = [&](const Tensor<3>& in, const Tensor<2>& w) {
    const Shape s = in.shape();
    return in.reshape<2>(Shape{s[0] * s[1], s[2]}).matmul(w).reshape<3>(Shape{s[0], s[1], 4 * h});
  };
  Tensor<3> p1 = module::lstm_recurrence(input_part(x, w_ih1), w_hh1, h0, c0);
  Tensor<3> y1 = p1.narrow(2, 5 * h, h);
  Tensor<3> p2 = module::lstm_recurrence(input_part(y1, w_ih2), w_hh2, h0 * 0.5, c0, true);
  // Every packed column takes part (weights differ per column), and the last cell state.
  auto r = Tensor<3>::from_data(host_uniform({c.batch, c.steps, 6 * h}, seed + 7, -1, 1), dev);
  Tensor<2> c_last = p1.narrow(1, c.steps - 1, 1).squeeze<2>(1).narrow(1, 4 * h, h);
  auto loss = (p2 * r).sum() + (c_last * c_last).sum();
  Gradients g = loss.backward();
  std::vector<RawTensor> out{loss.raw(), p1.raw(), p2.raw()};
  for (const Tensor<2>* t : {&w_ih1, &w_hh1, &w_ih2, &w_hh2, &h0, &c0}) {
    out.push_back(t->grad(g).value().raw());
  }
  return out;
}

const Case kCases[] = {
    {3, 5, 6, 7},      // hidden not a multiple of the units per workgroup
    {64, 9, 32, 128},  // the benchmark's batch
    {5, 1, 4, 9},      // one step
    {200, 3, 8, 20},   // a wide batch
    {2, 12, 3, 300},   // more hidden units than some devices have SMs at one unit each
    {64, 4, 16, 512},  // the benchmark's layer: 128 workgroups of 16 units x 16 rows
};

TEST(LstmKernel, TrainingStepMatchesTheCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  uint32_t seed = 700;
  const bool cuda = testing::gpu_device().type() == DeviceType::Cuda;
  for (const Case& c : kCases) {
    // Elsewhere the composite runs, a step at a time: the small cases cover it (lavapipe takes
    // minutes to compile and run the wide ones, fused and unfused).
    if (!cuda && c.batch * c.hidden > 1024) continue;
    SCOPED_TRACE(absl::StrCat("batch ", c.batch, " steps ", c.steps, " input ", c.input, " hidden ",
                              c.hidden));
    // f32 sums in other orders, carried back through every step of both layers.
    testing::expect_same_fused_and_unfused(
        [&](const Device& dev) { return training_step(dev, c, seed); }, 1e-3, 1e-4);
    seed += 10;
  }
}

// States held from an earlier flush are strided views of its packed output; the next call
// reads them in place as its initial states, and a state's gradient reaches the earlier call.
TEST(LstmKernel, ContinuesFromStatesOfAnEarlierFlush) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same(
      [](const Device& dev) {
        const int64_t b = 4, t = 6, h = 16;
        auto xp = Tensor<3>::from_data(host_uniform({b, t, 4 * h}, 1), dev).require_grad();
        auto w = Tensor<2>::from_data(host_uniform({h, 4 * h}, 2, -0.3, 0.3), dev).require_grad();
        auto zeros = Tensor<2>::zeros(Shape{b, h}, dev);
        Tensor<3> first = module::lstm_recurrence(xp, w, zeros, zeros);
        Tensor<2> last = first.narrow(1, t - 1, 1).squeeze<2>(1);
        Tensor<2> hidden = last.narrow(1, 5 * h, h), cell = last.narrow(1, 4 * h, h);
        sync(dev);  // the states are now views of a materialised buffer
        Tensor<3> second = module::lstm_recurrence(xp, w, hidden, cell, true);
        Gradients g = second.narrow(2, 5 * h, h).sum().backward();
        return std::vector<RawTensor>{second.raw(), xp.grad(g).value().raw(),
                                      w.grad(g).value().raw()};
      },
      testing::gpu_device(), 2e-4, 2e-5);
}

// A bidirectional layer: two recurrences over the same input that do not depend on each other,
// forward and backward in one flush, three steps so that CUDA replays the flush as a graph. On
// CUDA their kernels synchronise their whole grids, so the graph must not run them side by side
// (each could hold part of the SMs and wait for the rest).
TEST(LstmKernel, BidirectionalStepsMatchTheCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same(
      [](const Device& dev) {
        // Graphs are CUDA's: elsewhere one small step checks the composite (lavapipe took
        // 149 s for three of the CUDA size, fused and unfused).
        const bool cuda = testing::gpu_device().type() == DeviceType::Cuda;
        const int64_t b = 8, t = 5, h = cuda ? 64 : 16;
        auto xp = Tensor<3>::from_data(host_uniform({b, t, 4 * h}, 11), dev).require_grad();
        auto w =
            Tensor<2>::from_data(host_uniform({h, 4 * h}, 12, -0.125, 0.125), dev).require_grad();
        auto s = Tensor<2>::from_data(host_uniform({b, h}, 13, -1, 1), dev);
        std::vector<RawTensor> out;
        for (int step = 0; step < (cuda ? 3 : 1); ++step) {
          Tensor<3> fwd = module::lstm_recurrence(xp, w, s, s);
          Tensor<3> rev = module::lstm_recurrence(xp, w, s, s, true);
          auto loss = (fwd.narrow(2, 5 * h, h) * rev.narrow(2, 5 * h, h)).sum();
          Gradients g = loss.backward();
          out = {loss.raw(), xp.grad(g).value().raw(), w.grad(g).value().raw()};
          sync(dev);
        }
        return out;
      },
      testing::gpu_device(), 1e-3, 1e-4);
}

// Misuse names the op and the shapes, and leaves the program usable.
TEST(LstmKernel, BadShapesThrowAndTheStreamGoesOn) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto xp = Tensor<3>::zeros(Shape{2, 3, 8}, dev);
  auto w = Tensor<2>::zeros(Shape{2, 8}, dev);
  auto s = Tensor<2>::zeros(Shape{2, 2}, dev);
  try {
    module::lstm_recurrence(xp, Tensor<2>::zeros(Shape{3, 8}, dev), s, s);
    FAIL() << "a weight of the wrong shape was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lstm_recurrence"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[3, 8]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(module::lstm_recurrence(xp, w, Tensor<2>::zeros(Shape{3, 2}, dev), s), Error);
  Tensor<3> p = module::lstm_recurrence(xp, w, s, s);
  // Zero inputs: every gate 0.5, g 0, so c and h stay 0.
  const std::vector<float> d = p.to_data().to_vec<float>();
  EXPECT_FLOAT_EQ(d[0], 0.5f);      // i of unit 0
  EXPECT_FLOAT_EQ(d[2 * 2], 0.0f);  // g of unit 0
}

// On CUDA an LSTM layer's forward is one kernel (and one that zeroes its barrier words),
// whatever the length.
TEST(LstmKernel, KernelsDoNotGrowWithTheSequenceOnCuda) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  EMBER_SKIP_UNLESS(dev.type() == DeviceType::Cuda, "the fused kernel runs on CUDA");
  ASSERT_GT(jit::lstm_split(detail::backend_for(dev), DType::F32, 64, 512, false).units, 0);
  std::vector<int64_t> launched;
  for (int64_t steps : {16, 64}) {
    auto xp = Tensor<3>::from_data(host_uniform({64, steps, 2048}, 3), dev);
    auto w = Tensor<2>::from_data(host_uniform({512, 2048}, 4, -0.05, 0.05), dev);
    auto s = Tensor<2>::from_data(host_uniform({64, 512}, 5), dev);
    sync(dev);
    reset_stats(dev);
    Tensor<3> p = module::lstm_recurrence(xp, w, s, s);
    sync(dev);
    launched.push_back(stats(dev).kernels_launched);
    EXPECT_LE(launched.back(), 2) << stats(dev).to_string();
  }
  EXPECT_EQ(launched[0], launched[1]);
}

}  // namespace
}  // namespace ember
