// How the planner places collectives (kernels/collective/family.h): each is a kernel of its
// own over a stored operand, launched right after the kernels it needs (so a gradient bucket
// travels while the rest of backward runs), collectives in the order they were recorded (every
// rank must issue them in the same order), and the plan stays a topological order.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/builder.h"
#include "jit/lower/lower.h"
#include "jit/plan/plan.h"
#include "kernels/registry.h"

namespace ember::jit {
namespace {

using ir::Builder;
using ir::ValueId;

TensorType f32(Shape s) { return {DType::F32, std::move(s)}; }

ir::CollectiveAttrs all_reduce() {
  return {ir::CollectiveKind::AllReduce, ir::CollectiveReduce::Mean, 0, 1, 2};
}

// The kernel storing v.
int kernel_of(const Plan& p, ValueId v) {
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const auto& outs = p.kernels[k].outputs;
    if (std::find(outs.begin(), outs.end(), v) != outs.end() || p.kernels[k].anchor == v)
      return static_cast<int>(k);
  }
  return -1;
}

// Every value a kernel reads is stored by an earlier kernel (or is an input), and producer[]
// names the kernel storing each output.
void expect_topological(const ir::Graph& g, const Plan& p) {
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    for (ValueId o : p.kernels[k].outputs) EXPECT_EQ(p.producer[o], static_cast<int>(k)) << o;
    ValueId a = p.kernels[k].anchor;
    if (a < 0) continue;
    for (ValueId in : g.node(a).inputs) {
      while (!p.stored[in] && g.node(in).op != ir::OpKind::Input) in = g.node(in).inputs[0];
      EXPECT_LT(p.producer[in], static_cast<int>(k)) << "kernel " << k << " reads %" << in;
    }
  }
}

struct Step {
  ir::Graph g;
  ValueId h = -1, late = -1, c_early = -1, c_late = -1, out = -1;
};

// h = x @ w1 is ready first; late = exp(x @ w2) @ w2 takes two more matmuls. The collective of
// h is recorded after all of it, as DataParallel::sync records gradient buckets after backward.
Step make_step(bool two_collectives) {
  Step s;
  Builder b(s.g);
  ValueId x = b.input(0, f32({64, 64})), w1 = b.input(1, f32({64, 64})),
          w2 = b.input(2, f32({64, 64}));
  s.h = b.matmul(x, w1);
  s.late = b.matmul(b.unary(ir::UnaryFn::Exp, b.matmul(x, w2)), w2);
  if (two_collectives) s.c_late = b.collective(s.late, all_reduce());
  s.c_early = b.collective(s.h, all_reduce());
  s.out = b.binary(ir::BinaryFn::Add, s.c_early, two_collectives ? s.c_late : s.late);
  return s;
}

TEST(CollectivePlan, LaunchesAsSoonAsItsOperandIsComputed) {
  for (bool fusion : {true, false}) {
    SCOPED_TRACE(fusion ? "fused" : "unfused");
    Step s = make_step(false);
    Plan p = make_plan(s.g, {s.out}, fusion);
    int c = kernel_of(p, s.c_early);
    ASSERT_GE(c, 0);
    EXPECT_STREQ(p.kernels[c].family->name(), "collective");
    EXPECT_TRUE(p.stored[s.h]) << "NCCL reads its operand from memory";
    EXPECT_EQ(c, kernel_of(p, s.h) + 1) << print_plan(s.g, p);
    EXPECT_LT(c, kernel_of(p, s.late)) << "the later matmuls run while it communicates\n"
                                       << print_plan(s.g, p);
    expect_topological(s.g, p);
  }
}

TEST(CollectivePlan, KeepsTheRecordedOrderOfCollectives) {
  Step s = make_step(true);
  Plan p = make_plan(s.g, {s.out}, true);
  int late = kernel_of(p, s.c_late), early = kernel_of(p, s.c_early);
  ASSERT_GE(late, 0);
  ASSERT_GE(early, 0);
  EXPECT_LT(late, early) << "recorded first, launched first, although its operand is ready later\n"
                         << print_plan(s.g, p);
  EXPECT_LT(early, kernel_of(p, s.out));
  expect_topological(s.g, p);
}

TEST(CollectivePlan, LowersToExternalWorkWithNothingToCompile) {
  Step s = make_step(false);
  Plan p = make_plan(s.g, {s.out}, true);
  int c = kernel_of(p, s.c_early);
  std::vector<runtime::Array> layouts;
  for (ValueId v = 0; v < s.g.size(); ++v)
    layouts.push_back(runtime::Array::contiguous(nullptr, s.g.type(v)));
  auto layout = [&](ValueId v) -> const runtime::Array& { return layouts[v]; };
  LoweredKernel lk = lower_kernel(s.g, p, c, layout);
  EXPECT_TRUE(lk.desc.host);
  EXPECT_EQ(lk.launch.external_anchor, s.c_early);
  EXPECT_EQ(lk.launch.bindings, (std::vector<ValueId>{s.h, s.c_early}));
  EXPECT_EQ(lk.launch.writes, (std::vector<bool>{false, true}));
}

}  // namespace
}  // namespace ember::jit
