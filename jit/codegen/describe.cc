// The readable listing of a kernel description (EMBER_DUMP=plan, after the plan as it ran):
// statements with expressions in a neutral notation, independent of any target language.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "jit/codegen/kernel.h"

namespace ember::jit {
namespace {

// What an expression's immediate means: a buffer or slot, a function, a lane.
std::string immediate(const Expr& e) {
  switch (e.op) {
    case XOp::Param:
    case XOp::ParamF:
    case XOp::ParamD:
    case XOp::ParamI64:
      return absl::StrCat(" p", e.imm);
    case XOp::Load:
    case XOp::LoadVec:
      return absl::StrCat(" b", e.imm);
    case XOp::Unary:
      return absl::StrCat(".", ir::unary_name(static_cast<ir::UnaryFn>(e.imm)));
    case XOp::Binary:
      return absl::StrCat(".", ir::binary_name(static_cast<ir::BinaryFn>(e.imm)));
    case XOp::Const:
      return absl::StrCat(" ", e.type == CType::Float || e.type == CType::Double
                                   ? absl::StrCat(e.fimm)
                                   : absl::StrCat(e.imm));
    case XOp::Lane:
    case XOp::ArrayLoad:
      return absl::StrCat(" ", e.imm);
    default:
      return "";
  }
}

}  // namespace

std::string describe(const KernelDesc& k) {
  static const char* kOps[] = {
      "param",    "paramf",   "paramd", "parami64", "const",      "var",    "builtin",
      "load",     "unary",    "binary", "select",   "cast",       "random", "shared_load",
      "quantize", "load_vec", "lane",   "make_vec", "array_load", "fma",    "mulhi"};
  static const char* kStmts[] = {
      "let",       "decl",         "assign",       "store",      "for_grid",    "for_rows",
      "for_lanes", "for_seq",      "if",           "end",        "reduce",      "arg_reduce",
      "barrier",   "error",        "shared_store", "decl_array", "array_store", "mma_tile",
      "attention", "stream_store", "lstm"};
  static_assert(sizeof(kStmts) / sizeof(kStmts[0]) == static_cast<size_t>(SOp::Lstm) + 1,
                "a name for every statement kind");
  std::string s = absl::StrCat("kernel ", k.name, ": ", k.buffers.size(), " buffers, ",
                               k.num_params, " params, workgroup ", k.workgroup_size, "\n");
  for (const Stmt& st : k.body) {
    absl::StrAppend(&s, "  ", kStmts[static_cast<int>(st.op)]);
    if (st.var >= 0) absl::StrAppend(&s, " x", st.var);
    if (st.expr >= 0) {
      const Expr& e = k.exprs[st.expr];
      absl::StrAppend(&s, " v", st.expr, "=", kOps[static_cast<int>(e.op)]);
      absl::StrAppend(&s, immediate(e));
      absl::StrAppend(
          &s, "<", ctype_name(e.type), ">(",
          absl::StrJoin(e.args, ",", [](std::string* o, int a) { absl::StrAppend(o, "v", a); }),
          ")");
    }
    if (st.buffer >= 0) absl::StrAppend(&s, " buffer ", st.buffer);
    if (st.buffer2 >= 0) absl::StrAppend(&s, ",", st.buffer2);
    if (!st.args.empty()) {
      absl::StrAppend(
          &s, " (",
          absl::StrJoin(st.args, ",", [](std::string* o, int a) { absl::StrAppend(o, "v", a); }),
          ")");
    }
    absl::StrAppend(&s, "\n");
  }
  return s;
}

}  // namespace ember::jit
