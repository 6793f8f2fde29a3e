// Which matmul operands the tile templates read in place (kernels/matmul/operands.h): strided
// views of stored values, reshapes included where the strides allow; and what the planner
// stores first so that a product is not sent to the SIMT template (attention's heads merged
// back, a cast). Expected answers follow from the memory layout, worked out by hand below.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "jit/plan/plan.h"
#include "kernels/matmul/operands.h"

namespace ember::jit {
namespace {

using ir::ValueId;

struct Fixture {
  ir::Graph g;
  ir::Builder b{g};
  std::vector<char> stored() const {
    std::vector<char> s(g.size(), 0);
    for (ValueId v = 0; v < g.size(); ++v) s[v] = g.node(v).op == ir::OpKind::Input;
    return s;
  }
};

TEST(MatmulOperands, ReshapesThatKeepRunsContiguousAreViews) {
  Fixture f;
  ValueId x = f.b.input(0, {DType::BF16, {8, 16, 96}});
  // [8, 16, 96] rows merged: [128, 96] is the same memory.
  EXPECT_TRUE(reads_as_strided_view(f.g, f.stored(), f.b.reshape(x, {128, 96})));
  // Split the last dim and transpose the pieces: still strides (96, 1) -> (32, 1) per piece.
  ValueId heads = f.b.permute(f.b.reshape(x, {8, 16, 3, 32}), {0, 2, 1, 3});
  EXPECT_TRUE(reads_as_strided_view(f.g, f.stored(), heads));
  // A window of rows, then merged with the batch: rows 4..11 of each batch are not one run of
  // rows across batches ([8, 8, 96] with strides (1536, 96, 1) cannot be [64, 96]).
  ValueId window = f.b.slice(x, {0, 4, 0}, {8, 8, 96}, {1, 1, 1});
  EXPECT_FALSE(reads_as_strided_view(f.g, f.stored(), f.b.reshape(window, {64, 96})));
  // ... but splitting the window's rows is fine.
  EXPECT_TRUE(reads_as_strided_view(f.g, f.stored(), f.b.reshape(window, {8, 2, 4, 96})));
}

// Reshapes over broadcast, size-1 and empty dims, as the planner meets them in expanded biases
// and gradients.
TEST(MatmulOperands, ReshapeViewsOfBroadcastsAndOnes) {
  Fixture f;
  ValueId bias = f.b.input(0, {DType::F32, {1, 64}});
  // [1, 64] broadcast to [8, 64] (stride 0 along rows), then rows split: still a view.
  ValueId wide = f.b.expand(bias, {8, 64});
  EXPECT_TRUE(reads_as_strided_view(f.g, f.stored(), f.b.reshape(wide, {2, 4, 64})));
  // Merging the broadcast rows with the columns would need one stride for both: no view.
  EXPECT_FALSE(reads_as_strided_view(f.g, f.stored(), f.b.reshape(wide, {512})));
  // Ones inserted and removed anywhere.
  ValueId x = f.b.input(1, {DType::F32, {3, 1, 5}});
  EXPECT_TRUE(reads_as_strided_view(f.g, f.stored(), f.b.reshape(x, {1, 3, 5, 1})));
  EXPECT_TRUE(reads_as_strided_view(f.g, f.stored(), f.b.reshape(x, {15})));
  // An empty tensor reads nothing: any shape of no elements is a view.
  ValueId empty = f.b.input(2, {DType::F32, {0, 4}});
  EXPECT_TRUE(reads_as_strided_view(f.g, f.stored(), f.b.reshape(empty, {4, 0})));
}

TEST(MatmulOperands, MergedHeadsAndCastsAreNotViews) {
  Fixture f;
  ValueId heads = f.b.input(0, {DType::BF16, {2, 12, 64, 16}});  // [batch, head, seq, dim]
  // Back to [batch, seq, head * dim]: after the permute, head and dim are 64 * 16 apart.
  ValueId merged = f.b.reshape(f.b.permute(heads, {0, 2, 1, 3}), {2, 64, 192});
  EXPECT_FALSE(reads_as_strided_view(f.g, f.stored(), merged));
  ValueId x = f.b.input(1, {DType::F32, {64, 192}});
  EXPECT_FALSE(reads_as_strided_view(f.g, f.stored(), f.b.cast(x, DType::BF16)));
}

// The planner stores what the tile cannot read in place, and only that.
TEST(MatmulOperands, PlannerStoresOperandsThatAreNotViews) {
  for (DType t : {DType::BF16, DType::F32}) {
    Fixture f;
    ValueId heads = f.b.input(0, {t, {2, 12, 64, 16}});
    ValueId x = f.b.input(1, {t, {2, 64, 192}});
    ValueId w = f.b.input(2, {t, {192, 48}});
    ValueId merged = f.b.reshape(f.b.permute(heads, {0, 2, 1, 3}), {128, 192});
    ValueId rows = f.b.reshape(x, {128, 192});
    ValueId a = f.b.matmul(merged, w), c = f.b.matmul(rows, w);
    Plan plan = make_plan(f.g, {a, c}, true);
    SCOPED_TRACE(dtype_name(t));
    EXPECT_TRUE(plan.stored[merged]);
    EXPECT_FALSE(plan.stored[rows]);
  }
  // Integer products have no tile: their operands stay inline.
  Fixture f;
  ValueId heads = f.b.input(0, {DType::I32, {2, 12, 64, 16}});
  ValueId w = f.b.input(1, {DType::I32, {192, 48}});
  ValueId merged = f.b.reshape(f.b.permute(heads, {0, 2, 1, 3}), {128, 192});
  Plan plan = make_plan(f.g, {f.b.matmul(merged, w)}, true);
  EXPECT_FALSE(plan.stored[merged]);
}

// A weight gradient reads an activation recomputed in the backward pass (an expression)
// transposed: the expression is stored in its own order and the product reads it through the
// transpose, instead of a pointwise kernel writing the transpose (found in
// gpt_small_train_step: every layer's GELU output transposed through memory, uncoalesced).
TEST(MatmulOperands, TransposedExpressionIsStoredInItsOwnOrder) {
  for (DType t : {DType::BF16, DType::F32}) {
    Fixture f;
    ValueId x = f.b.input(0, {t, {8, 16, 32}});
    ValueId act = f.b.unary(ir::UnaryFn::Tanh, x);
    ValueId transposed = f.b.permute(f.b.reshape(act, {128, 32}), {1, 0});
    ValueId dy = f.b.input(1, {t, {128, 24}});
    ValueId gw = f.b.matmul(transposed, dy);
    Plan plan = make_plan(f.g, {gw}, true);
    SCOPED_TRACE(dtype_name(t));
    EXPECT_TRUE(plan.stored[act]);
    EXPECT_FALSE(plan.stored[transposed]);
    // Merged heads are no strided view even once their expression is stored: that copy stays.
    ValueId heads = f.b.unary(ir::UnaryFn::Tanh, f.b.input(2, {t, {2, 4, 16, 8}}));
    ValueId merged = f.b.reshape(f.b.permute(heads, {0, 2, 1, 3}), {32, 32});
    ValueId y = f.b.matmul(merged, f.b.input(3, {t, {32, 24}}));
    Plan plan2 = make_plan(f.g, {y}, true);
    EXPECT_TRUE(plan2.stored[heads]);
    EXPECT_TRUE(plan2.stored[merged]);
  }
}

// q, k and v cut from one packed projection with its bias added (nn's self-attention): the
// biased projection is stored once (its product's epilogue) and each slice read through a view;
// a small slice of an expression stays the only thing stored (found in gpt_small_train_step:
// every layer's q, k and v copied out, the bias added again per slice).
TEST(MatmulOperands, SlicesOfAPackedProjectionAreViewsOfIt) {
  Fixture f;
  ValueId x = f.b.input(0, {DType::BF16, {2, 16, 32}});
  ValueId w = f.b.input(1, {DType::BF16, {32, 96}});
  ValueId bias = f.b.input(2, {DType::BF16, {1, 96}});
  ValueId y = f.b.binary(ir::BinaryFn::Add, f.b.matmul(f.b.reshape(x, {32, 32}), w),
                         f.b.expand(bias, {32, 96}));
  auto part = [&](int64_t i) {  // [2, 2 heads, 16, 16]
    ValueId cut = f.b.slice(y, {0, 32 * i}, {32, 32}, {1, 1});
    return f.b.permute(f.b.reshape(cut, {2, 16, 2, 16}), {0, 2, 1, 3});
  };
  ValueId q = part(0), k = part(1), v = part(2);
  ValueId scores = f.b.matmul(q, f.b.permute(k, {0, 1, 3, 2}));
  ValueId out = f.b.matmul(scores, v);
  // A slice of a tenth of an expression: the slice is stored, not the whole expression.
  ValueId wide = f.b.unary(ir::UnaryFn::Tanh, f.b.input(3, {DType::BF16, {32, 320}}));
  ValueId narrow = f.b.slice(wide, {0, 0}, {32, 32}, {1, 1});
  ValueId other = f.b.matmul(narrow, f.b.input(4, {DType::BF16, {32, 8}}));
  Plan plan = make_plan(f.g, {out, other}, true);
  EXPECT_TRUE(plan.stored[y]);
  for (ValueId view : {q, k, v}) EXPECT_FALSE(plan.stored[view]);
  EXPECT_FALSE(plan.stored[wide]);
  EXPECT_TRUE(plan.stored[narrow]);
}

}  // namespace
}  // namespace ember::jit
