#include "ir/ops.h"

namespace ember::ir {

const char* op_name(OpKind op) {
  static const char* kNames[kOpKindCount] = {
      "input",  "full",    "iota",        "random", "unary", "binary",     "where",     "cast",
      "reduce", "reshape", "permute",     "expand", "slice", "flip",       "pad",       "concat",
      "matmul", "gather",  "scatter_add", "sort",   "conv",  "collective", "attention", "lstm"};
  return kNames[static_cast<int>(op)];
}

const char* unary_name(UnaryFn fn) {
  static const char* kNames[kUnaryFnCount] = {
      "neg",   "abs",  "exp",         "log",         "log1p",  "sqrt",  "sin",  "cos",
      "tan",   "tanh", "sinh",        "cosh",        "erf",    "floor", "ceil", "round",
      "recip", "sign", "logical_not", "bitwise_not", "is_nan", "is_inf"};
  return kNames[static_cast<int>(fn)];
}

const char* binary_name(BinaryFn fn) {
  static const char* kNames[kBinaryFnCount] = {
      "add",         "sub",        "mul",     "div",    "rem",     "pow", "max",
      "min",         "eq",         "ne",      "lt",     "le",      "gt",  "ge",
      "logical_and", "logical_or", "bit_and", "bit_or", "bit_xor", "shl", "shr"};
  return kNames[static_cast<int>(fn)];
}

const char* reduce_name(ReduceFn fn) {
  static const char* kNames[kReduceFnCount] = {"sum", "prod", "max", "min", "argmax", "argmin"};
  return kNames[static_cast<int>(fn)];
}

const char* collective_name(CollectiveKind k) {
  static const char* kNames[] = {"all_reduce", "broadcast", "all_gather", "reduce_scatter"};
  return kNames[static_cast<int>(k)];
}

const char* dist_name(RandomDist d) {
  switch (d) {
    case RandomDist::Uniform:
      return "uniform";
    case RandomDist::Normal:
      return "normal";
    case RandomDist::Bernoulli:
      return "bernoulli";
  }
  return "?";
}

}  // namespace ember::ir
