#!/usr/bin/env python3
"""Writes docs/ops.md: every op of the Burn Book's tensor tables, the primitives it lowers to
(as implemented in frontend/), and the tests that call it (found by scanning tests/)."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (table, op as called, primitives it lowers to)
OPS = [
    ("basic", "cat", "concat"), ("basic", "empty", "full"), ("basic", "from_primitive", "—"),
    ("basic", "stack", "reshape, concat"), ("basic", "all", "reshape, binary.ne, reduce.min"),
    ("basic", "all_dim", "binary.ne, reduce.min"), ("basic", "any", "reshape, binary.ne, reduce.max"),
    ("basic", "any_dim", "binary.ne, reduce.max"), ("basic", "chunk", "slice"),
    ("basic", "split", "slice"), ("basic", "split_with_sizes", "slice"), ("basic", "device", "—"),
    ("basic", "dtype", "—"), ("basic", "dims", "—"), ("basic", "equal", "binary.eq"),
    ("basic", "expand", "reshape, expand"), ("basic", "flatten", "reshape"), ("basic", "flip", "flip"),
    ("basic", "into_data", "(sync)"), ("basic", "into_primitive", "—"),
    ("basic", "into_scalar", "(sync)"), ("basic", "narrow", "slice"),
    ("basic", "not_equal", "binary.ne"), ("basic", "permute", "permute"),
    ("basic", "movedim", "permute"), ("basic", "repeat_dim", "reshape, expand, reshape"),
    ("basic", "repeat", "reshape, expand, reshape"), ("basic", "reshape", "reshape"),
    ("basic", "roll", "slice, concat"), ("basic", "roll_dim", "slice, concat"),
    ("basic", "shape", "—"), ("basic", "slice", "slice, flip"),
    ("basic", "slice_assign", "reshape, pad, slice, full, where"),
    ("basic", "slice_fill", "slice, full, pad, where"), ("basic", "slice_dim", "slice"),
    ("basic", "squeeze", "reshape"), ("basic", "swap_dims", "permute"),
    ("basic", "to_data", "(sync)"), ("basic", "to_device", "(sync, upload)"),
    ("basic", "transpose", "permute"), ("basic", "unsqueeze", "reshape"),
    ("basic", "unsqueeze_dim", "reshape"), ("basic", "unsqueeze_dims", "reshape"),
    ("numeric", "eye", "iota, binary.sub, binary.eq, cast"), ("numeric", "full", "full"),
    ("numeric", "ones", "full"), ("numeric", "zeros", "full"), ("numeric", "abs", "unary.abs"),
    ("numeric", "add", "binary.add"), ("numeric", "add_scalar", "full, binary.add"),
    ("numeric", "all_close", "is_close, all (sync)"),
    ("numeric", "argmax", "reduce.argmax"), ("numeric", "argmin", "reduce.argmin"),
    ("numeric", "argsort", "sort(indices)"), ("numeric", "argsort_descending", "sort(indices)"),
    ("numeric", "bool_", "full, binary.ne"), ("numeric", "clamp", "binary.max, binary.min"),
    ("numeric", "clamp_max", "binary.min"), ("numeric", "clamp_min", "binary.max"),
    ("numeric", "contains_nan", "unary.is_nan, reduce.max"), ("numeric", "div", "binary.div"),
    ("numeric", "div_scalar", "full, binary.div"), ("numeric", "equal_elem", "full, binary.eq"),
    ("numeric", "full_like", "full"), ("numeric", "gather", "gather"),
    ("numeric", "greater", "binary.gt"), ("numeric", "greater_elem", "full, binary.gt"),
    ("numeric", "greater_equal", "binary.ge"), ("numeric", "greater_equal_elem", "full, binary.ge"),
    ("numeric", "lower", "binary.lt"), ("numeric", "lower_elem", "full, binary.lt"),
    ("numeric", "lower_equal", "binary.le"), ("numeric", "lower_equal_elem", "full, binary.le"),
    ("numeric", "mask_fill", "full, where"), ("numeric", "mask_where", "where"),
    ("numeric", "max", "reshape, reduce.max"), ("numeric", "max_abs", "unary.abs, reduce.max"),
    ("numeric", "max_abs_dim", "unary.abs, reduce.max"), ("numeric", "max_dim", "reduce.max"),
    ("numeric", "max_dim_with_indices", "reduce.max, reduce.argmax"),
    ("numeric", "max_pair", "binary.max"), ("numeric", "mean", "reshape, reduce.sum, binary.div"),
    ("numeric", "mean_dim", "reduce.sum, binary.div"), ("numeric", "min", "reshape, reduce.min"),
    ("numeric", "min_dim", "reduce.min"), ("numeric", "min_dim_with_indices", "reduce.min, reduce.argmin"),
    ("numeric", "min_pair", "binary.min"), ("numeric", "mul", "binary.mul"),
    ("numeric", "mul_scalar", "full, binary.mul"), ("numeric", "neg", "unary.neg"),
    ("numeric", "not_equal_elem", "full, binary.ne"), ("numeric", "ones_like", "full"),
    ("numeric", "one_hot", "reshape, cast, iota, binary.eq, where"),
    ("numeric", "one_hot_fill", "reshape, cast, iota, binary.eq, where"),
    ("numeric", "pad", "slice, pad"), ("numeric", "powf", "binary.pow"),
    ("numeric", "powi", "cast, binary.pow"), ("numeric", "powf_scalar", "full, binary.pow"),
    ("numeric", "powi_scalar", "full, binary.pow"), ("numeric", "prod", "reshape, reduce.prod"),
    ("numeric", "prod_dim", "reduce.prod"), ("numeric", "rem", "binary.rem"),
    ("numeric", "scatter", "scatter_add"), ("numeric", "select", "reshape, expand, gather"),
    ("numeric", "select_assign", "reshape, expand, scatter_add"), ("numeric", "sign", "unary.sign"),
    ("numeric", "sort", "sort"), ("numeric", "sort_descending", "sort"),
    ("numeric", "sort_descending_with_indices", "sort, sort(indices)"),
    ("numeric", "sort_with_indices", "sort, sort(indices)"), ("numeric", "sub", "binary.sub"),
    ("numeric", "sub_scalar", "full, binary.sub"), ("numeric", "sum", "reshape, reduce.sum"),
    ("numeric", "sum_dim", "reduce.sum"), ("numeric", "topk", "sort, slice"),
    ("numeric", "topk_with_indices", "sort, slice"),
    ("numeric", "tril", "iota, binary.sub, binary.gt, expand, where"),
    ("numeric", "triu", "iota, binary.sub, binary.lt, expand, where"),
    ("numeric", "zeros_like", "full"),
    ("float", "cast", "cast"), ("float", "ceil", "unary.ceil"), ("float", "cos", "unary.cos"),
    ("float", "cosh", "unary.cosh"), ("float", "erf", "unary.erf"), ("float", "exp", "unary.exp"),
    ("float", "floor", "unary.floor"), ("float", "from_floats", "(upload)"),
    ("float", "from_full_precision", "cast"), ("float", "int_", "cast"),
    ("float", "is_close", "binary.sub, unary.abs, binary.le, is_finite, binary.eq"),
    ("float", "is_finite", "unary.is_nan, unary.is_inf, binary.logical_or, unary.logical_not"),
    ("float", "is_inf", "unary.is_inf"), ("float", "is_nan", "unary.is_nan"),
    ("float", "log", "unary.log"), ("float", "log1p", "unary.log1p"), ("float", "matmul", "matmul"),
    ("float", "random", "random (+ unary.floor, cast for ints)"), ("float", "random_like", "random"),
    ("float", "recip", "unary.recip"), ("float", "round", "unary.round"), ("float", "sin", "unary.sin"),
    ("float", "sinh", "unary.sinh"), ("float", "sqrt", "unary.sqrt"), ("float", "tan", "unary.tan"),
    ("float", "tanh", "unary.tanh"), ("float", "to_full_precision", "cast"),
    ("float", "var", "reduce.sum, binary.div, binary.sub, binary.mul"),
    ("float", "var_bias", "reduce.sum, binary.div, binary.sub, binary.mul"),
    ("float", "var_mean", "reduce.sum, binary.div, binary.sub, binary.mul"),
    ("float", "var_mean_bias", "reduce.sum, binary.div, binary.sub, binary.mul"),
    ("int", "arange", "iota, binary.mul, binary.add"), ("int", "arange_step", "iota, binary.mul, binary.add"),
    ("int", "bitwise_and", "binary.bit_and"), ("int", "bitwise_and_scalar", "full, binary.bit_and"),
    ("int", "bitwise_not", "unary.bitwise_not"), ("int", "bitwise_left_shift", "binary.shl"),
    ("int", "bitwise_left_shift_scalar", "full, binary.shl"), ("int", "bitwise_right_shift", "binary.shr"),
    ("int", "bitwise_right_shift_scalar", "full, binary.shr"), ("int", "bitwise_or", "binary.bit_or"),
    ("int", "bitwise_or_scalar", "full, binary.bit_or"), ("int", "bitwise_xor", "binary.bit_xor"),
    ("int", "bitwise_xor_scalar", "full, binary.bit_xor"), ("int", "float_", "cast"),
    ("int", "from_ints", "(upload)"), ("int", "int_random", "random, unary.floor, cast"),
    ("int", "cartesian_grid", "iota, concat"),
    ("bool", "diag_mask", "iota, binary.sub, binary.ne, expand"),
    ("bool", "tril_mask", "iota, binary.sub, binary.gt, expand"),
    ("bool", "triu_mask", "iota, binary.sub, binary.lt, expand"),
    ("bool", "argwhere", "(sync; data-dependent shape, upload)"), ("bool", "bool_and", "binary.logical_and"),
    ("bool", "bool_not", "unary.logical_not"), ("bool", "bool_or", "binary.logical_or"),
    ("bool", "nonzero", "argwhere, slice, reshape"),
    ("activation", "gelu", "binary.mul, unary.erf, binary.add"),
    ("activation", "hard_sigmoid", "binary.mul, binary.add, binary.max, binary.min"),
    ("activation", "leaky_relu", "binary.lt, binary.mul, where"),
    ("activation", "log_sigmoid", "unary.neg, binary.max, unary.abs, unary.exp, unary.log1p, binary.add"),
    ("activation", "log_softmax", "reduce.max, binary.sub, unary.exp, reduce.sum, unary.log"),
    ("activation", "mish", "softplus, unary.tanh, binary.mul"),
    ("activation", "prelu", "reshape, binary.lt, binary.mul, where"),
    ("activation", "quiet_softmax", "reduce.max, binary.sub, unary.exp, reduce.sum, binary.add, binary.div"),
    ("activation", "relu", "full, binary.max"), ("activation", "sigmoid", "softplus, unary.exp"),
    ("activation", "silu", "sigmoid, binary.mul"),
    ("activation", "softmax", "reduce.max, binary.sub, unary.exp, reduce.sum, binary.div"),
    ("activation", "softmin", "unary.neg, softmax"), ("activation", "softplus", "binary.max, unary.abs, unary.exp, unary.log1p"),
    ("activation", "tanh", "unary.tanh"),
    ("grid", "meshgrid", "reshape, expand"),
    ("linalg", "vector_norm", "unary.abs, reduce.sum|max|min, binary.pow, unary.sqrt"),
    ("display", "to_string", "(sync)"), ("display", "set_print_options", "—"),
    ("closeness", "check_closeness", "(sync)"), ("closeness", "assert_approx_eq", "(host)"),
]


def tests_calling(op):
    pattern = re.compile(r"(\.|::|\b)" + re.escape(op) + r"\s*[<(]")
    names = []
    for path in sorted((ROOT / "tests").rglob("*_test.cc")):
        current = None
        for line in path.read_text().splitlines():
            m = re.match(r"\s*TEST(?:_F)?\((\w+),\s*(\w+)\)", line)
            if m:
                current = f"{m.group(1)}.{m.group(2)}"
            elif current and pattern.search(line) and current not in names:
                names.append(current)
    return names


def main():
    lines = ["# Ops: Burn Book tensor tables → Ember primitives → tests", "",
             "Generated by `scripts/gen_ops_table.py`. Primitives are those of `ir/ops.h`; "
             "\"(sync)\" ops read data. Tests are GoogleTest names (`Suite.Name`); "
             "`VulkanOps.*` run the op on Vulkan, fused and unfused, against the CPU.", "",
             "| table | op | lowers to | tests |", "| --- | --- | --- | --- |"]
    missing = []
    for table, op, prims in OPS:
        tests = tests_calling(op)
        if not tests:
            missing.append(op)
        shown = ", ".join(f"`{t}`" for t in tests[:4]) + (f" (+{len(tests) - 4})" if len(tests) > 4 else "")
        lines.append(f"| {table} | `{op}` | {prims} | {shown or '**none**'} |")
    (ROOT / "docs" / "ops.md").write_text("\n".join(lines) + "\n")
    print(f"{len(OPS)} ops, {len(missing)} without a test: {missing}")


if __name__ == "__main__":
    main()
