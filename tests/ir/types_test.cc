#include <gtest/gtest.h>

#include "ir/dtype.h"
#include "ir/error.h"
#include "ir/shape.h"

namespace ember {
namespace {

TEST(DType, SizesAndNames) {
  struct Case {
    DType t;
    size_t size;
    const char* name;
    bool is_float, is_int;
  };
  for (const Case& c :
       {Case{DType::F32, 4, "f32", true, false}, Case{DType::F16, 2, "f16", true, false},
        Case{DType::BF16, 2, "bf16", true, false}, Case{DType::F64, 8, "f64", true, false},
        Case{DType::I32, 4, "i32", false, true}, Case{DType::I64, 8, "i64", false, true},
        Case{DType::U8, 1, "u8", false, true}, Case{DType::Bool, 1, "bool", false, false}}) {
    EXPECT_EQ(dtype_size(c.t), c.size) << c.name;
    EXPECT_STREQ(dtype_name(c.t), c.name);
    EXPECT_EQ(is_float(c.t), c.is_float) << c.name;
    EXPECT_EQ(is_int(c.t), c.is_int) << c.name;
    EXPECT_EQ(dtype_from_name(c.name), c.t);
  }
  EXPECT_THROW(dtype_from_name("f8"), Error);
}

TEST(Shape, NumelStridesText) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.numel(), 24);
  EXPECT_EQ(s.contiguous_strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(s.to_string(), "[2, 3, 4]");
  EXPECT_EQ(Shape{}.numel(), 1);
  EXPECT_EQ((Shape{3, 0}).numel(), 0);
  EXPECT_EQ((TensorType{DType::I64, Shape{5}}).to_string(), "i64[5]");
}

TEST(Shape, NormalizeDim) {
  EXPECT_EQ(normalize_dim(-1, 3, "op"), 2);
  EXPECT_EQ(normalize_dim(0, 3, "op"), 0);
  EXPECT_THROW(normalize_dim(3, 3, "op"), Error);
  EXPECT_THROW(normalize_dim(-4, 3, "op"), Error);
  try {
    normalize_dim(5, 2, "sum_dim");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sum_dim: dim 5 out of range for rank 2"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace ember
