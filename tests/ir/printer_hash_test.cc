#include <gtest/gtest.h>

#include "ir/builder.h"

namespace ember::ir {
namespace {

// x * 2 + y over the given sizes.
Graph axpy(Shape sx, Shape sy, DType t = DType::F32, double scale = 2.0) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, {t, sx});
  ValueId y = b.input(1, {t, sy});
  ValueId s = b.full(Shape(std::vector<int64_t>(sx.rank(), 1)), t, Scalar::from_double(scale));
  b.binary(BinaryFn::Add, b.binary(BinaryFn::Mul, x, s), y);
  return g;
}

TEST(Printer, OneLinePerNode) {
  Graph g = axpy({2, 3}, {1, 3});
  EXPECT_EQ(print_graph(g, {4}),
            "%0 = input() {slot=0} : f32[2, 3]\n"
            "%1 = input() {slot=1} : f32[1, 3]\n"
            "%2 = full() {value=2} : f32[1, 1]\n"
            "%3 = binary.mul(%0, %2) : f32[2, 3]\n"
            "%4 = binary.add(%3, %1) : f32[2, 3]\n"
            "outputs: %4\n");
}

// One 1-D input per size.
Graph inputs_of_sizes(const std::vector<int64_t>& sizes) {
  Graph g;
  Builder b(g);
  for (size_t i = 0; i < sizes.size(); ++i) {
    b.input(static_cast<int>(i), {DType::F32, Shape{sizes[i]}});
  }
  return g;
}

TEST(Hash, ManyDistinctSizesKeepTheirEqualityClasses) {
  // More distinct sizes than the hasher searches linearly (it switches to a map).
  std::vector<int64_t> a, b;
  for (int i = 0; i < 80; ++i) {
    a.push_back(10 + i);
    b.push_back(1000 + 3 * i);
  }
  uint64_t ha = structural_hash(inputs_of_sizes(a), {});
  EXPECT_EQ(ha, structural_hash(inputs_of_sizes(b), {}));
  for (auto [i, j] : {std::pair{70, 5}, std::pair{70, 60}, std::pair{20, 3}}) {
    std::vector<int64_t> c = a;
    c[i] = c[j];  // two sizes equal, before and after the switch
    EXPECT_NE(ha, structural_hash(inputs_of_sizes(c), {})) << i << " = " << j;
  }
}

TEST(Hash, IgnoresConcreteSizesAndScalars) {
  EXPECT_EQ(structural_hash(axpy({2, 3}, {1, 3}), {4}),
            structural_hash(axpy({7, 9}, {1, 9}, DType::F32, 0.5), {4}));
}

// The code generator maps a reshape's index by groups of dims with equal products: [2, 3, 4, 5]
// as [6, 20] is two groups, as [8, 15] one. Same size classes, different kernels: the hash
// tells them apart (a compiled plan of one must not run the other).
TEST(Hash, KeepsAReshapesDimGroups) {
  auto reshaped = [](Shape to) {
    Graph g;
    Builder b(g);
    b.reshape(b.input(0, {DType::F32, {2, 3, 4, 5}}), std::move(to));
    return g;
  };
  EXPECT_NE(structural_hash(reshaped({6, 20}), {1}), structural_hash(reshaped({8, 15}), {1}));
  EXPECT_EQ(reshaped({6, 20}).size(), 2);
  auto other = [](Shape from, Shape to) {  // the same grouping at other sizes: one plan
    Graph g;
    Builder b(g);
    b.reshape(b.input(0, {DType::F32, std::move(from)}), std::move(to));
    return g;
  };
  EXPECT_EQ(structural_hash(other({2, 3, 4, 5}, {6, 20}), {1}),
            structural_hash(other({7, 11, 13, 17}, {77, 221}), {1}));
}

TEST(Hash, KeepsBroadcastPatternDtypeEqualityAndOutputs) {
  uint64_t base = structural_hash(axpy({2, 3}, {1, 3}), {4});
  EXPECT_NE(base, structural_hash(axpy({2, 3}, {2, 1}), {4}));              // which dims are 1
  EXPECT_NE(base, structural_hash(axpy({2, 3}, {1, 3}, DType::F16), {4}));  // dtype
  EXPECT_NE(structural_hash(axpy({4, 4}, {1, 4}), {4}),
            structural_hash(axpy({4, 5}, {1, 5}), {4}));           // equal dims
  EXPECT_NE(base, structural_hash(axpy({2, 3}, {1, 3}), {3, 4}));  // outputs
}

// Inputs of `distinct` different sizes, then one of size `last`: whether `last` repeats an
// earlier size is structure, however many sizes came before it.
Graph many_sizes(int distinct, int64_t last) {
  Graph g;
  Builder b(g);
  for (int i = 0; i < distinct; ++i) b.input(i, {DType::F32, {100 + i}});
  b.input(distinct, {DType::F32, {last}});
  return g;
}

TEST(Hash, KeepsEqualityAmongManyDistinctSizes) {
  for (int distinct : {3, 40, 80}) {
    std::vector<ValueId> outs{distinct};
    uint64_t fresh = structural_hash(many_sizes(distinct, 5000), outs);
    EXPECT_EQ(fresh, structural_hash(many_sizes(distinct, 7000), outs)) << distinct;
    for (int p = 0; p < distinct; ++p) {
      EXPECT_NE(fresh, structural_hash(many_sizes(distinct, 100 + p), outs))
          << distinct << " sizes, repeating the one at " << p;
    }
  }
}

}  // namespace
}  // namespace ember::ir
