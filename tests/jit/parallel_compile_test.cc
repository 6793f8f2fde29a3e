// A plan's kernels compile on several threads (jit::get_kernels): every kernel is the one a
// single thread would load, a kernel repeated in the plan compiles once (the other threads wait
// for it), and no temporary file is left in the disk cache.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "ir/builder.h"
#include "jit/compile/compile.h"
#include "jit/exec/executor.h"
#include "jit/lower/lower.h"
#include "jit/plan/plan.h"
#include "jit/stats.h"
#include "tests/jit/gpu_util.h"

namespace ember::jit {
namespace {

// One unfused kernel per op: distinct unary functions, and the first repeated at the end.
std::vector<KernelDesc> descs_of_unary_chain(const std::vector<ir::UnaryFn>& fns) {
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId v = b.input(0, {DType::F32, {64}});
  for (ir::UnaryFn fn : fns) v = b.unary(fn, v);
  Plan plan = make_plan(g, {v}, /*fusion=*/false);
  std::vector<runtime::Array> layouts;
  for (ir::ValueId i = 0; i < g.size(); ++i)
    layouts.push_back(runtime::Array::contiguous(nullptr, g.type(i)));
  auto layout = [&](ir::ValueId i) -> const runtime::Array& { return layouts[i]; };
  std::vector<KernelDesc> out;
  for (int k = 0; k < static_cast<int>(plan.kernels.size()); ++k)
    out.push_back(lower_kernel(g, plan, k, layout).desc);
  return out;
}

TEST(ParallelCompile, SameKernelsAsOneThreadEachCompiledOnce) {
  EMBER_REQUIRE_GPU_DEVICE();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ember_parallel_compile_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  setenv("EMBER_CACHE_DIR", dir.c_str(), 1);
  runtime::Backend& backend = ember::detail::backend_for(testing::gpu_device());
  using ir::UnaryFn;
  std::vector<KernelDesc> descs = descs_of_unary_chain(
      {UnaryFn::Exp, UnaryFn::Tanh, UnaryFn::Sin, UnaryFn::Cos, UnaryFn::Sqrt, UnaryFn::Abs});
  descs.push_back(descs[0]);  // the same kernel twice in one plan
  descs.push_back(descs[1]);
  clear_memory_cache();
  const int64_t before = counters().compiles.load();
  std::vector<std::shared_ptr<runtime::Kernel>> kernels = get_kernels(descs, backend);
  EXPECT_EQ(counters().compiles.load() - before, 6) << "each distinct kernel compiled once";
  ASSERT_EQ(kernels.size(), descs.size());
  std::set<const runtime::Kernel*> distinct;
  for (const auto& k : kernels) {
    ASSERT_NE(k, nullptr);
    distinct.insert(k.get());
  }
  EXPECT_EQ(distinct.size(), 6u);
  EXPECT_EQ(kernels[6], kernels[0]);
  EXPECT_EQ(kernels[7], kernels[1]);
  // What one thread gets for each description afterwards: the same kernels (memory cache).
  for (size_t i = 0; i < descs.size(); ++i) EXPECT_EQ(get_kernel(descs[i], backend), kernels[i]);
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ember::jit
