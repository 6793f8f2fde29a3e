// Differential fuzzing of training steps: random programs of 5-40 differentiable ops (math,
// broadcasts, reductions, softmax, views: flips, transposes, reshapes, slices with pads and
// concatenations, convolutions and pooling) whose loss is backpropagated in the same flush while a
// random subset of intermediates is still held, as a training loop that prints its loss does. That
// is where fused kernels write outputs over dying intermediates (in-place reuse), which the
// forward-only fuzz never exercised. Two steps run: the loss is read (one flush of forward and
// backward), then the inputs take a gradient step and the second step is recorded and read (in
// two flushes: the loss read before backward() in half the programs, or on CUDA backward()
// starting the forward first). Every loss, gradient and held intermediate of both steps is
// compared with the CPU reference, fused (and every fifth program unfused).
//
// EMBER_FUZZ_TRAIN_PROGRAMS raises the count (default 100 per CI run); EMBER_FUZZ_SEED changes
// the stream; EMBER_FUZZ_TRAIN_FIRST starts at a given program (to rerun a failing seed).
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"
#include "tests/frontend/test_util.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::host_uniform;

enum class Kind { Unary, Binary, Where, Reduce, Norm, View, Cast, Conv, kCount, Identity };
// (Identity is never generated: the reducer puts it in place of steps it removes.)

struct Step {
  Kind kind;
  int fn;       // which variant of the kind
  int a, b, c;  // operand indices into the value pool
  int dim, dim2;
};

struct TrainSpec {
  Shape base;
  std::vector<Shape> inputs;
  std::vector<Step> steps;
  std::vector<int> loss_terms;  // pool values whose weighted sums make the loss
  std::vector<int> held;        // pool values kept alive across the flush and compared
};

TrainSpec generate(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  TrainSpec p;
  int rank = 1 + pick(4);
  const int64_t sizes[] = {1, 2, 3, 5, 7, 16};
  std::vector<int64_t> base;
  for (int d = 0; d < rank; ++d) base.push_back(sizes[pick(6)]);
  p.base = Shape(base);
  int n_inputs = 1 + pick(3);
  for (int i = 0; i < n_inputs; ++i) {
    std::vector<int64_t> s = base;
    for (int64_t& d : s) {
      if (pick(3) == 0) d = 1;
    }
    p.inputs.push_back(Shape(s));
  }
  int n_steps = 5 + pick(36);
  int pool = n_inputs;
  for (int i = 0; i < n_steps; ++i) {
    p.steps.push_back({static_cast<Kind>(pick(static_cast<int>(Kind::kCount))), pick(8), pick(pool),
                       pick(pool), pick(pool), pick(rank), pick(rank)});
    ++pool;
  }
  p.loss_terms = {pool - 1};
  for (int i = pick(3); i > 0; --i) p.loss_terms.push_back(n_inputs + pick(pool - n_inputs));
  for (int i = pick(5); i > 0; --i) p.held.push_back(n_inputs + pick(pool - n_inputs));
  return p;
}

Tensor<4> unary(const Tensor<4>& a, int fn) {
  switch (fn) {
    case 0:
      return a.sin();
    case 1:
      return a.tanh();
    case 2:
      return (a.abs() + 1.0).log();
    case 3:
      return (a * a + 1.0).sqrt();
    case 4:
      return activation::sigmoid(a) * 2.0 - 1.0;
    case 5:
      return a.erf();
    case 6:
      return a.clamp(-3.0, 3.0).exp() * 0.25;
    default:
      return activation::gelu(a);
  }
}

Tensor<4> binary(const Tensor<4>& a, const Tensor<4>& b, int fn) {
  switch (fn % 6) {
    case 0:
      return a + b;
    case 1:
      return a - b;
    case 2:
      return (a * b).clamp(-4.0, 4.0);
    case 3:
      return a / (b.abs() + 1.0);
    case 4:
      return a.max_pair(b);
    default:
      return a.min_pair(b) * 0.5 + b;
  }
}

Tensor<4> reduce(const Tensor<4>& a, int dim, int fn) {
  switch (fn % 5) {
    case 0:
      return a.sum_dim(dim) / 8.0;
    case 1:
      return a.max_dim(dim);
    case 2:
      return a.mean_dim(dim) + a;  // the reduction broadcast back: a row kernel with epilogue
    case 3:
      return activation::softmax(a, dim);
    default:
      return activation::log_softmax(a, dim) * 0.25;
  }
}

// Layer-norm-like: centre and scale along dim (var + 1 keeps the gradient tame).
Tensor<4> norm(const Tensor<4>& a, int dim) {
  auto centred = a - a.mean_dim(dim);
  return centred / ((centred * centred).mean_dim(dim) + 1.0).sqrt();
}

// Shape-preserving view chains: each reads its operand through index arithmetic.
Tensor<4> view(const Tensor<4>& a, int dim, int dim2, int fn) {
  const auto dims = a.dims();
  switch (fn % 5) {
    case 0:
      return a.flip({dim});
    case 1: {  // drop the first element along dim and pad it back
      if (dims[dim] < 2) return a * 0.5;
      std::vector<std::pair<int64_t, int64_t>> pads(4 - dim, {0, 0});
      pads.back() = {1, 0};
      return a.slice_dim(dim, Range(1, dims[dim])).pad(pads, 0.25);
    }
    case 2:  // transpose where the two dims agree, then an op, then back
      if (dims[dim] != dims[dim2]) return a.flip({dim2}) * 1.5;
      return (a.swap_dims(dim, dim2) * 1.5).swap_dims(dim, dim2);
    case 3:  // through a flat view and back
      return (a.reshape<1>(Shape{a.num_elements()}) - 0.5).reshape<4>(a.shape());
    default: {  // split along dim and concatenate the halves swapped
      if (dims[dim] < 2) return a + 0.125;
      int64_t k = dims[dim] / 2;
      return Tensor<4>::cat({a.slice_dim(dim, Range(k, dims[dim])), a.slice_dim(dim, Range(0, k))},
                            dim);
    }
  }
}

// Convolutions and pooling that keep a's shape [N, C, H, W] (so that later ops broadcast with
// it): same-padded convolutions (plain, depthwise, 1x1, dilated, transposed), same-size pools,
// and a strided convolution resampled back. Weights are fixed host data (gradients reach a).
Tensor<4> conv(const Tensor<4>& a, int fn) {
  const auto& d = a.dims();
  const int64_t c = d[1];
  auto weight = [&](int64_t in_per_group, int64_t k, uint32_t seed) {
    return Tensor<4>::from_data(host_uniform({c, in_per_group, k, k}, seed, -0.4, 0.4), a.device());
  };
  const module::ConvOptions<2> same{{1, 1}, {1, 1}, {1, 1}, 1};
  switch (fn) {
    case 0:
      return module::conv2d(a, weight(c, 3, 501), std::nullopt, same);
    case 1:
      return module::conv2d(a, weight(1, 3, 502), std::nullopt, {{1, 1}, {1, 1}, {1, 1}, c});
    case 2:
      return module::conv2d(a, weight(c, 1, 503));
    case 3:
      return module::conv2d(a, weight(c, 3, 504), std::nullopt, {{1, 1}, {2, 2}, {2, 2}, 1});
    case 4:
      return module::max_pool2d(a, {3, 3}, {{{1, 1}}, {1, 1}});
    case 5:
      return module::avg_pool2d(a, {3, 3}, {{{1, 1}}, {1, 1}, {1, 1}, false, false});
    case 6: {
      auto down = module::conv2d(a, weight(c, 3, 505), std::nullopt, {{2, 2}, {1, 1}, {1, 1}, 1});
      return module::interpolate(down, {d[2], d[3]});
    }
    default:
      return module::conv_transpose2d(a, weight(c, 3, 506), std::nullopt,
                                      {{1, 1}, {1, 1}, {0, 0}, {1, 1}, 1});
  }
}

struct Leaves {
  std::vector<Tensor<1>> flat;
};

// Runs the program once on `leaves`, returning the loss and the pool.
std::pair<Tensor<1>, std::vector<Tensor<4>>> forward(const TrainSpec& p, const Leaves& leaves) {
  std::vector<Tensor<4>> pool;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    std::vector<int64_t> d(4 - p.inputs[i].rank(), 1);
    d.insert(d.end(), p.inputs[i].dims.begin(), p.inputs[i].dims.end());
    pool.push_back(leaves.flat[i].reshape<4>(Shape(d)));
  }
  const int offset = 4 - p.base.rank();
  for (const Step& s : p.steps) {
    const Tensor<4>& a = pool[s.a];
    int dim = s.dim + offset, dim2 = s.dim2 + offset;
    switch (s.kind) {
      case Kind::Unary:
        pool.push_back(unary(a, s.fn));
        break;
      case Kind::Binary:
        pool.push_back(binary(a, pool[s.b], s.fn));
        break;
      case Kind::Where:
        pool.push_back(pool[s.b].mask_where(a.greater(pool[s.c]), pool[s.c]));
        break;
      case Kind::Reduce:
        pool.push_back(reduce(a, dim, s.fn));
        break;
      case Kind::Norm:
        pool.push_back(norm(a, dim));
        break;
      case Kind::View:
        pool.push_back(view(a, dim, dim2, s.fn));
        break;
      case Kind::Conv:
        pool.push_back(conv(a, s.fn));
        break;
      case Kind::Identity:
        pool.push_back(a);
        break;
      default:  // through f64 and back: casts in the middle of fused chains. Exact (a power
        // of two), so that comparisons of the result with its operand agree on every device.
        pool.push_back((a.cast(DType::F64) * 4.0).cast(DType::F32) * 0.25);
        break;
    }
  }
  Tensor<1> loss;
  for (size_t i = 0; i < p.loss_terms.size(); ++i) {
    const Tensor<4>& t = pool[p.loss_terms[i]];
    // A fixed weight per term (same host data on every device) so gradients are not all ones.
    auto w =
        Tensor<4>::from_data(host_uniform(t.shape(), 977 + static_cast<uint32_t>(i)), t.device());
    Tensor<1> term = (t * w).sum();
    loss = i == 0 ? term : loss + term;
  }
  return {loss, pool};
}

// Two training steps on `dev`: loss, held intermediates and input gradients of each.
std::vector<RawTensor> run(const TrainSpec& p, uint32_t seed, const Device& dev) {
  Leaves leaves;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    TensorData d = host_uniform(Shape{p.inputs[i].numel()}, seed * 31 + static_cast<uint32_t>(i));
    leaves.flat.push_back(Tensor<1>::from_data(d, dev).require_grad());
  }
  std::vector<RawTensor> out;
  for (int step = 0; step < 2; ++step) {
    auto [loss, pool] = forward(p, leaves);
    // The first step keeps forward and backward in one flush. In the second, half the programs
    // read the loss before backward() (the forward computed first: backward reads the values
    // still held instead of recomputing them); the others let backward() start the forward
    // itself where the device runs asynchronously (CUDA).
    std::optional<testing::OneFlushGuard> one_flush;
    if (step == 0) one_flush.emplace();
    std::vector<Tensor<4>> held;
    auto keep_held = [&] {
      for (int h : p.held) held.push_back(pool[h]);
      pool.clear();  // only the held values and the gradients survive the flush
    };
    // Loss first: the intermediates not held are dropped before backward() (recomputed in its
    // flush), the held ones read.
    const bool loss_first = step == 1 && seed % 2 == 0;
    if (loss_first) {
      (void)loss.into_scalar<float>();
      keep_held();
    }
    Gradients grads = loss.backward();
    if (!loss_first) keep_held();
    (void)loss.into_scalar<float>();  // "prints its loss"
    out.push_back(loss.raw());
    for (const Tensor<4>& h : held) out.push_back(h.raw());
    Leaves next;
    for (const Tensor<1>& leaf : leaves.flat) {
      std::optional<Tensor<1>> g = leaf.grad(grads);
      Tensor<1> gi = g ? *g : leaf.zeros_like();
      out.push_back(gi.raw());
      next.flat.push_back((leaf - gi.clamp(-1.0, 1.0) * 0.05).detach().require_grad());
    }
    leaves = std::move(next);
  }
  return out;
}

// The program as text, printed with a failure so it can be reproduced and reduced.
std::string describe(const TrainSpec& p) {
  const char* kinds[] = {"unary", "binary", "where", "reduce", "norm",
                         "view",  "cast",   "conv",  "",       "identity"};
  std::string s = absl::StrCat("inputs:");
  for (const Shape& in : p.inputs) absl::StrAppend(&s, " ", in.to_string());
  int v = static_cast<int>(p.inputs.size());
  for (const Step& st : p.steps) {
    absl::StrAppend(&s, "\n  %", v++, " = ", kinds[static_cast<int>(st.kind)], " fn=", st.fn, " (%",
                    st.a, ", %", st.b, ", %", st.c, ") dim=", st.dim, " dim2=", st.dim2);
  }
  absl::StrAppend(&s, "\n  loss terms:");
  for (int t : p.loss_terms) absl::StrAppend(&s, " %", t);
  absl::StrAppend(&s, "; held:");
  for (int h : p.held) absl::StrAppend(&s, " %", h);
  return s;
}

// Whether the program gives the CPU's results on the test device (fused), without recording a
// test failure: the reducer's oracle.
bool matches_cpu(const TrainSpec& spec, uint32_t seed) {
  try {
    auto ref = run(spec, seed, Device::cpu_reference());
    auto got = run(spec, seed, testing::gpu_device());
    for (size_t i = 0; i < ref.size(); ++i) {
      try {
        got[i].to_data().assert_approx_eq(ref[i].to_data(), Tolerance::rel_abs(5e-3, 1e-3));
      } catch (const Error&) {
        return false;
      }
    }
    return true;
  } catch (const std::exception&) {
    return true;  // a program that throws is not the failure being reduced
  }
}

// Greedy reduction of a failing program (EMBER_FUZZ_TRAIN_REDUCE=1): steps become identities,
// loss terms and held values are dropped, each while the program still fails.
TrainSpec reduce_failure(TrainSpec spec, uint32_t seed) {
  for (bool progress = true; progress;) {
    progress = false;
    for (int i = static_cast<int>(spec.steps.size()) - 1; i >= 0; --i) {
      if (spec.steps[i].kind == Kind::Identity) continue;
      TrainSpec trial = spec;
      trial.steps[i].kind = Kind::Identity;
      if (!matches_cpu(trial, seed)) {
        spec = trial;
        progress = true;
      }
    }
    for (auto* list : {&spec.loss_terms, &spec.held}) {
      for (int i = static_cast<int>(list->size()) - 1; i >= 0; --i) {
        if (list == &spec.loss_terms && list->size() == 1) break;
        TrainSpec trial = spec;
        auto* l = list == &spec.loss_terms ? &trial.loss_terms : &trial.held;
        l->erase(l->begin() + i);
        if (!matches_cpu(trial, seed)) {
          spec = trial;
          progress = true;
        }
      }
    }
  }
  return spec;
}

int env_int(const char* name, int fallback) {
  const char* env = std::getenv(name);
  int n = env ? std::atoi(env) : 0;
  return n > 0 ? n : fallback;
}

uint32_t base_seed() {
  const char* env = std::getenv("EMBER_FUZZ_SEED");
  return env ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : 20261123u;
}

TEST(FuzzTrain, RandomTrainingStepsMatchCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  const int n = env_int("EMBER_FUZZ_TRAIN_PROGRAMS", 100);
  const int first = env_int("EMBER_FUZZ_TRAIN_FIRST", 0);
  const uint32_t seed0 = base_seed();
  int ran = 0;
  for (int i = first; i < first + n; ++i) {
    uint32_t seed = seed0 + static_cast<uint32_t>(i);
    TrainSpec spec = generate(seed);
    SCOPED_TRACE(absl::StrCat("program ", i, " seed ", seed, " (", spec.steps.size(),
                              " ops, base shape ", spec.base.to_string(), ")"));
    testing::Program prog = [&](const Device& dev) { return run(spec, seed, dev); };
    if (i % 5 == 0) {
      testing::expect_same_fused_and_unfused(prog, 5e-3, 1e-3);
    } else {
      testing::expect_same(prog, testing::gpu_device(), 5e-3, 1e-3);
    }
    ++ran;
    if (HasFailure()) {  // one reproducible seed is enough to debug
      ADD_FAILURE() << "program " << i << " (EMBER_FUZZ_TRAIN_FIRST=" << i
                    << " EMBER_FUZZ_TRAIN_PROGRAMS=1 reruns it):\n"
                    << describe(spec);
      if (std::getenv("EMBER_FUZZ_TRAIN_REDUCE")) {
        ADD_FAILURE() << "reduced:\n" << describe(reduce_failure(spec, seed));
      }
      break;
    }
  }
  std::printf("fuzz-train: %d programs on %s, %s\n", ran, testing::gpu_device().to_string().c_str(),
              HasFailure() ? "FAILED" : "all matched the CPU");
}

}  // namespace
}  // namespace ember
