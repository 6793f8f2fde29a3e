// The readable listing of a kernel description (EMBER_DUMP=plan): statements with expressions
// in a neutral notation, independent of any target language.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "jit/kernel.h"

namespace ember::jit {

std::string describe(const KernelDesc& k) {
  static const char* kOps[] = {"param",    "paramf",  "paramd",   "parami64",    "const",
                               "var",      "builtin", "load",     "unary",       "binary",
                               "select",   "cast",    "random",   "shared_load", "quantize",
                               "load_vec", "lane",    "make_vec", "array_load"};
  static const char* kStmts[] = {"let",        "decl",        "assign",  "store", "for_grid",
                                 "for_rows",   "for_lanes",   "for_seq", "if",    "end",
                                 "reduce",     "arg_reduce",  "barrier", "error", "shared_store",
                                 "decl_array", "array_store", "mma_tile"};
  std::string s = absl::StrCat("kernel ", k.name, ": ", k.buffers.size(), " buffers, ",
                               k.num_params, " params, workgroup ", k.workgroup_size, "\n");
  for (const Stmt& st : k.body) {
    absl::StrAppend(&s, "  ", kStmts[static_cast<int>(st.op)]);
    if (st.var >= 0) absl::StrAppend(&s, " x", st.var);
    if (st.expr >= 0) {
      const Expr& e = k.exprs[st.expr];
      absl::StrAppend(
          &s, " v", st.expr, "=", kOps[static_cast<int>(e.op)], "<", ctype_name(e.type), ">(",
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
