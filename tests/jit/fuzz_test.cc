// Differential fuzzing: random programs of 5-40 ops over random broadcastable shapes, run fused on
// Vulkan and compared with the CPU reference. EMBER_FUZZ_PROGRAMS raises the count (default 200
// per CI run); EMBER_FUZZ_SEED changes the stream.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "absl/strings/str_cat.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::host_uniform;

enum class Kind { Unary, Binary, Where, Reduce, Flip, SlicePad, Expand, CastRound };

struct Step {
  Kind kind;
  int fn;       // which unary/binary/reduction
  int a, b, c;  // operand indices into the value pool
  int dim;
};

struct ProgramSpec {
  Shape base;
  std::vector<Shape> inputs;
  std::vector<Step> steps;
  std::vector<int> outputs;
};

ProgramSpec generate(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  ProgramSpec p;
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
    Step s{static_cast<Kind>(pick(8)), pick(8), pick(pool), pick(pool), pick(pool), pick(rank)};
    p.steps.push_back(s);
    ++pool;
  }
  p.outputs = {pool - 1};
  for (int i = pick(3); i > 0; --i) p.outputs.push_back(pick(pool));
  return p;
}

// Interprets a spec on a device. Every value stays broadcastable with the base shape.
std::vector<RawTensor> run(const ProgramSpec& p, uint32_t seed, const Device& dev) {
  std::vector<Tensor<4>> pool;  // rank padded to 4 with leading 1s
  auto lift = [](const Tensor<1>& t, const Shape& s) {
    std::vector<int64_t> d(4 - s.rank(), 1);
    d.insert(d.end(), s.dims.begin(), s.dims.end());
    return t.reshape<4>(Shape(d));
  };
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    auto flat = Tensor<1>::from_data(host_uniform(Shape{p.inputs[i].numel()}, seed * 31 + i), dev);
    pool.push_back(lift(flat, p.inputs[i]));
  }
  int offset = 4 - p.base.rank();
  for (const Step& s : p.steps) {
    const Tensor<4>& a = pool[s.a];
    const Tensor<4>& b = pool[s.b];
    int dim = s.dim + offset;
    Tensor<4> r;
    switch (s.kind) {
      case Kind::Unary: {
        switch (s.fn) {
          case 0:
            r = a.sin();
            break;
          case 1:
            r = a.tanh();
            break;
          case 2:
            r = (a.abs() + 1.0).log();
            break;
          case 3:
            r = a.abs().sqrt();
            break;
          case 4:
            r = activation::sigmoid(a) * 2.0 - 1.0;
            break;
          case 5:
            r = a.erf();
            break;
          case 6:
            r = -a.cos();
            break;
          default:
            r = activation::gelu(a);
            break;
        }
        break;
      }
      case Kind::Binary: {
        switch (s.fn % 6) {
          case 0:
            r = a + b;
            break;
          case 1:
            r = a - b;
            break;
          case 2:
            r = (a * b).clamp(-4.0, 4.0);
            break;
          case 3:
            r = a / (b.abs() + 1.0);
            break;
          case 4:
            r = a.max_pair(b);
            break;
          default:
            r = a.min_pair(b);
            break;
        }
        break;
      }
      case Kind::Where:
        r = b.mask_where(a.greater(pool[s.c]), pool[s.c]);
        break;
      case Kind::Reduce: {
        switch (s.fn % 4) {
          case 0:
            r = a.sum_dim(dim) / 8.0;
            break;
          case 1:
            r = a.max_dim(dim);
            break;
          case 2:
            r = a.mean_dim(dim);
            break;
          default:
            r = activation::softmax(a, dim);
            break;
        }
        break;
      }
      case Kind::Flip:
        r = a.flip({dim});
        break;
      case Kind::SlicePad: {
        // Drop the first element along dim and pad it back with a constant: same shape.
        int64_t n = a.dims()[dim];
        if (n < 2) {
          r = a * 0.5;
          break;
        }
        std::vector<std::pair<int64_t, int64_t>> pads(4 - dim, {0, 0});
        pads.back() = {1, 0};
        r = a.slice_dim(dim, Range(1, n)).pad(pads, 0.25);
        break;
      }
      case Kind::Expand: {
        std::vector<int64_t> full(4 - p.base.rank(), 1);
        full.insert(full.end(), p.base.dims.begin(), p.base.dims.end());
        r = a.expand<4>(Shape(full)) + 0.0;
        break;
      }
      case Kind::CastRound:
        r = (a * 3.0).cast(s.fn % 2 ? DType::F16 : DType::F64).cast(DType::F32).round() / 3.0;
        break;
    }
    pool.push_back(r);
  }
  std::vector<RawTensor> out;
  for (int o : p.outputs) out.push_back(pool[o].raw());
  return out;
}

int programs_to_run() {
  const char* env = std::getenv("EMBER_FUZZ_PROGRAMS");
  int n = env ? std::atoi(env) : 0;
  return n > 0 ? n : 200;
}

uint32_t base_seed() {
  const char* env = std::getenv("EMBER_FUZZ_SEED");
  return env ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : 20261121u;
}

TEST(Fuzz, RandomProgramsMatchCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  int n = programs_to_run();
  uint32_t seed0 = base_seed();
  for (int i = 0; i < n; ++i) {
    uint32_t seed = seed0 + static_cast<uint32_t>(i);
    ProgramSpec spec = generate(seed);
    SCOPED_TRACE(absl::StrCat("program seed ", seed, " (", spec.steps.size(), " ops, base shape ",
                              spec.base.to_string(), ")"));
    testing::Program prog = [&](const Device& dev) { return run(spec, seed, dev); };
    // Every fifth program also runs unfused.
    if (i % 5 == 0) {
      testing::expect_same_fused_and_unfused(prog, 2e-3, 1e-4);
    } else {
      testing::expect_same(prog, testing::gpu_device(), 2e-3, 1e-4);
    }
    if (HasFailure()) break;  // one reproducible seed is enough to debug
  }
}

}  // namespace
}  // namespace ember
