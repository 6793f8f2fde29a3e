// The C-style core: walks a kernel description and prints statements and expressions. Only
// type names, builtins, memory access and a few intrinsics come from the Dialect.
#include "jit/codegen/render.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

class Renderer {
 public:
  Renderer(const KernelDesc& k, const Dialect& d) : k_(k), d_(d) {}

  std::string run() {
    std::string out = d_.prelude(k_);
    out += d_.entry_begin(k_);
    int depth = 1;
    for (size_t i = 0; i < k_.body.size(); ++i) {
      const Stmt& s = k_.body[i];
      if (s.op == SOp::End) --depth;
      std::string line = stmt(s);
      if (s.op == SOp::ForGrid) {
        line = d_.grid_prefix(k_, std::span(k_.body).subspan(i, loop_end(i) - i + 1)) + line;
      }
      if (s.op == SOp::ForLanes) {
        const size_t end = loop_end(i);
        size_t reduces = end + 1;
        while (reduces < k_.body.size() &&
               (k_.body[reduces].op == SOp::Reduce || k_.body[reduces].op == SOp::ArgReduce))
          ++reduces;
        line = d_.lanes_prefix(k_, std::span(k_.body).subspan(i, end - i + 1),
                               std::span(k_.body).subspan(end + 1, reduces - end - 1)) +
               line;
      }
      if (!line.empty()) out += std::string(2 * depth, ' ') + line + "\n";
      if (opens(s.op)) {
        ++depth;
        open_.push_back(s);
      }
    }
    out += d_.entry_end();
    return out;
  }

 private:
  // The index of the End of the loop opened at body[i].
  size_t loop_end(size_t i) const {
    int open = 0;
    for (size_t j = i; j < k_.body.size(); ++j) {
      if (opens(k_.body[j].op)) ++open;
      if (k_.body[j].op == SOp::End && --open == 0) return j;
    }
    return k_.body.size() - 1;
  }

  static bool opens(SOp op) {
    return op == SOp::ForGrid || op == SOp::ForRows || op == SOp::ForLanes || op == SOp::ForSeq ||
           op == SOp::If;
  }

  std::string T(CType t) const { return d_.type(t); }

  std::string literal(const Expr& e) const {
    switch (e.type) {
      case CType::Float:
      case CType::Double: {
        if (std::isinf(e.fimm)) return d_.infinity(e.type, e.fimm < 0);
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%.17g", e.fimm);
        std::string s = buf;
        if (s.find_first_of(".e") == std::string::npos) s += ".0";
        return absl::StrCat(T(e.type), "(", s, ")");
      }
      case CType::Bool:
        return e.imm ? "true" : "false";
      case CType::Uint:
        return absl::StrCat(static_cast<uint32_t>(e.imm), "u");
      case CType::Int:
        if (e.imm == INT32_MIN) return absl::StrCat("(", T(e.type), "(", INT32_MIN + 1, ") - 1)");
        return absl::StrCat(T(e.type), "(", e.imm, ")");
      case CType::Int64:
        // Built from 32-bit halves: 64-bit literal syntax differs between targets.
        return absl::StrCat("((", T(e.type), "(", static_cast<int32_t>(e.imm >> 32), ") << 32) | ",
                            T(e.type), "(", static_cast<uint32_t>(e.imm), "u))");
    }
    return "0";
  }

  std::string ref(int id) const {
    const Expr& e = k_.exprs[id];
    switch (e.op) {
      case XOp::Param:
        return d_.param(static_cast<int>(e.imm));
      case XOp::ParamF:
        return d_.param_float(static_cast<int>(e.imm));
      case XOp::ParamD:
        return d_.param_double(static_cast<int>(e.imm));
      case XOp::ParamI64:
        return d_.param_int64(static_cast<int>(e.imm));
      case XOp::Const:
        return literal(e);
      case XOp::Var:
        return absl::StrCat("x", e.imm);
      case XOp::Builtin:
        return d_.builtin(static_cast<Builtin>(e.imm));
      default:
        return absl::StrCat("v", id);
    }
  }

  std::string arg(const Expr& e, int i) const { return ref(e.args[i]); }

  bool floating(CType t) const { return t == CType::Float || t == CType::Double; }

  std::string unary(const Expr& e) const {
    auto fn = static_cast<UnaryFn>(e.imm);
    std::string a = arg(e, 0);
    CType t = k_.exprs[e.args[0]].type;
    std::string ty = T(t);
    switch (fn) {
      case UnaryFn::Neg:
        return absl::StrCat("(-", a, ")");
      case UnaryFn::Abs:
        if (floating(t)) return d_.math(fn, t, a);
        if (t == CType::Uint) return a;
        return absl::StrCat("(", a, " < ", ty, "(0) ? -", a, " : ", a, ")");
      case UnaryFn::Sign:
        if (t == CType::Uint) return absl::StrCat("(", a, " > 0u ? 1u : 0u)");
        return absl::StrCat("(", a, " > ", ty, "(0) ? ", ty, "(1) : (", a, " < ", ty, "(0) ? ", ty,
                            "(-1) : ", ty, "(0)))");
      case UnaryFn::LogicalNot:
        return absl::StrCat("(!", a, ")");
      case UnaryFn::BitwiseNot:
        return absl::StrCat("(~", a, ")");
      case UnaryFn::Recip:
        return absl::StrCat("(", ty, "(1) / ", a, ")");
      default:
        return d_.math(fn, t, a);
    }
  }

  std::string binary(const Expr& e) const {
    auto fn = static_cast<BinaryFn>(e.imm);
    std::string a = arg(e, 0), b = arg(e, 1);
    CType t = k_.exprs[e.args[0]].type;
    std::string ty = T(t);
    auto op = [&](const char* o) { return absl::StrCat("(", a, " ", o, " ", b, ")"); };
    switch (fn) {
      case BinaryFn::Add:
        return op("+");
      case BinaryFn::Sub:
        return op("-");
      case BinaryFn::Mul:
        return op("*");
      case BinaryFn::Div:
        if (floating(t)) return op("/");
        if (t == CType::Uint) {
          if (!d_.integer_division_traps()) return op("/");
          return absl::StrCat("(", b, " == 0u ? 0u : ", a, " / ", b, ")");
        }
        if (d_.integer_division_traps()) {  // INT_MIN / -1 traps too: -a wraps instead
          return absl::StrCat("(", b, " == ", ty, "(0) ? ", ty, "(0) : (", b, " == ", ty, "(-1) ? ",
                              ty, "(", ty, "(0) - ", a, ") : ", a, " / ", b, "))");
        }
        return absl::StrCat("(", b, " == ", ty, "(0) ? ", ty, "(0) : ", a, " / ", b, ")");
      case BinaryFn::Rem:
        if (t == CType::Uint) {
          if (!d_.integer_division_traps()) return op("%");
          return absl::StrCat("(", b, " == 0u ? 0u : ", a, " % ", b, ")");
        }
        return absl::StrCat(floating(t) ? "frem_" : "irem_", ty, "(", a, ", ", b, ")");
      case BinaryFn::Pow:
        if (t == CType::Uint) return absl::StrCat("upow(", a, ", ", b, ")");
        return absl::StrCat(floating(t) ? "fpow_" : "ipow_", ty, "(", a, ", ", b, ")");
      case BinaryFn::Max:
      case BinaryFn::Min: {
        const char* cmp = fn == BinaryFn::Max ? ">" : "<";
        std::string pick = absl::StrCat("(", a, " ", cmp, " ", b, " ? ", a, " : ", b, ")");
        if (!floating(t)) return pick;
        if (std::string call = d_.nan_minmax(fn == BinaryFn::Max, t, a, b); !call.empty())
          return call;
        return absl::StrCat("((", d_.math(UnaryFn::IsNan, t, a), " || ",
                            d_.math(UnaryFn::IsNan, t, b), ") ? ", ty, "(", a, " + ", b,
                            ") : ", pick, ")");
      }
      case BinaryFn::Eq:
        return op("==");
      case BinaryFn::Ne:
        return op("!=");
      case BinaryFn::Lt:
        return op("<");
      case BinaryFn::Le:
        return op("<=");
      case BinaryFn::Gt:
        return op(">");
      case BinaryFn::Ge:
        return op(">=");
      case BinaryFn::LogicalAnd:
        return op("&&");
      case BinaryFn::LogicalOr:
        return op("||");
      case BinaryFn::BitAnd:
        return op("&");
      case BinaryFn::BitOr:
        return op("|");
      case BinaryFn::BitXor:
        return op("^");
      case BinaryFn::Shl:
      case BinaryFn::Shr: {
        int bits = t == CType::Int64 ? 64 : 32;
        std::string in_range =
            absl::StrCat(t == CType::Uint ? "" : absl::StrCat(b, " >= ", ty, "(0) && "), b, " < ",
                         ty, "(", bits, ")");
        std::string shifted = absl::StrCat(a, fn == BinaryFn::Shl ? " << " : " >> ", b);
        std::string out_of_range =
            fn == BinaryFn::Shl || t == CType::Uint
                ? absl::StrCat(ty, "(0)")
                : absl::StrCat("(", b, " < ", ty, "(0) ? ", ty, "(0) : (", a, " < ", ty, "(0) ? ",
                               ty, "(-1) : ", ty, "(0)))");
        return absl::StrCat("((", in_range, ") ? ", ty, "(", shifted, ") : ", out_of_range, ")");
      }
    }
    return "0";
  }

  std::string cast(const Expr& e) const {
    std::string a = arg(e, 0);
    CType from = k_.exprs[e.args[0]].type;
    std::string to = T(e.type);
    if (e.type == CType::Bool) return absl::StrCat("(", a, " != ", T(from), "(0))");
    if (from == CType::Bool) return absl::StrCat(to, "(", a, " ? 1 : 0)");
    if (floating(from) && !floating(e.type)) {
      // Non-finite values become 0, and unsigned targets wrap like the CPU's int64 route.
      std::string via = e.type == CType::Uint ? absl::StrCat("uint(int(", a, "))")
                                              : absl::StrCat(to, "(", a, ")");
      return absl::StrCat("((", d_.math(UnaryFn::IsNan, from, a), " || ",
                          d_.math(UnaryFn::IsInf, from, a), ") ? ", to, "(0) : ", via, ")");
    }
    return absl::StrCat(to, "(", a, ")");
  }

  std::string rhs(int id) const {
    const Expr& e = k_.exprs[id];
    switch (e.op) {
      case XOp::Load:
        return d_.load(k_, static_cast<int>(e.imm), arg(e, 0));
      case XOp::Unary:
        return unary(e);
      case XOp::Binary:
        return binary(e);
      case XOp::Select:
        return absl::StrCat("(", arg(e, 0), " ? ", arg(e, 1), " : ", arg(e, 2), ")");
      case XOp::Fma:
        return d_.fma(e.type, arg(e, 0), arg(e, 1), arg(e, 2));
      case XOp::MulHi:
        return absl::StrCat("MULHI(", arg(e, 0), ", ", arg(e, 1), ")");
      case XOp::Cast:
        return cast(e);
      case XOp::Random:
        return absl::StrCat("philox_sample(", arg(e, 0), ", ", arg(e, 1), ", ", arg(e, 2), ", ",
                            arg(e, 3), ", ", arg(e, 4), ", ", arg(e, 5), ", ", e.imm, ")");
      case XOp::Quantize:
        return d_.quantize(static_cast<DType>(e.imm), arg(e, 0));
      case XOp::LoadVec:
        return d_.load_vec(k_, static_cast<int>(e.imm), arg(e, 0));
      case XOp::Lane:
        return absl::StrCat(arg(e, 0), ".", std::string(1, "xyzw"[e.imm]));
      case XOp::MakeVec:
        return d_.make_vec(e.type, arg(e, 0), arg(e, 1), arg(e, 2), arg(e, 3));
      case XOp::SharedLoad:
        return absl::StrCat(d_.shared_name(static_cast<int>(e.imm)), "[", arg(e, 0), "]");
      case XOp::ArrayLoad:
        return absl::StrCat("x", e.imm, "[", arg(e, 0), "]");
      default:
        return ref(id);
    }
  }

  std::string stmt(const Stmt& s) const {
    auto var = [](int v) { return absl::StrCat("x", v); };
    switch (s.op) {
      case SOp::Let: {
        const Expr& e = k_.exprs[s.expr];
        std::string type = e.vector() ? d_.vector_type(e.type) : T(e.type);
        return absl::StrCat(d_.let_qualifier(e.type), type, " v", s.expr, " = ", rhs(s.expr), ";");
      }
      case SOp::DeclVar:
        return absl::StrCat(T(s.type), " ", var(s.var), " = ", ref(s.expr), ";");
      case SOp::Assign:
        return absl::StrCat(var(s.var), " = ", ref(s.expr), ";");
      case SOp::Store:
        return d_.store(k_, s.buffer, ref(s.index), ref(s.expr)) + ";";
      case SOp::ForGrid:
        if (std::string own = d_.for_grid(var(s.var), ref(s.expr), s.code); !own.empty())
          return own;
        if (s.code > 1) {
          // `code` elements per thread per step, a grid stride apart (coalesced), guarded.
          std::string base = absl::StrCat("b", var(s.var)), u = absl::StrCat("u", var(s.var));
          return absl::StrCat("for (uint ", base, " = ", d_.global_id(), "; ", base, " < ",
                              ref(s.expr), "; ", base, " += ", d_.grid_stride(), " * ", s.code,
                              "u) { ", d_.unroll(), "for (uint ", u, " = 0u; ", u, " < ", s.code,
                              "u; ++", u, ") { uint ", var(s.var), " = ", base, " + ", u, " * ",
                              d_.grid_stride(), "; if (", var(s.var), " < ", ref(s.expr), ") {");
        }
        return absl::StrCat("for (uint ", var(s.var), " = ", d_.global_id(), "; ", var(s.var),
                            " < ", ref(s.expr), "; ", var(s.var), " += ", d_.grid_stride(), ") {");
      case SOp::ForRows:
        if (std::string own = d_.for_rows(var(s.var), ref(s.expr)); !own.empty()) return own;
        return absl::StrCat("for (uint ", var(s.var), " = ", d_.builtin(Builtin::WorkgroupId), "; ",
                            var(s.var), " < ", ref(s.expr), "; ", var(s.var),
                            " += ", d_.builtin(Builtin::NumWorkgroups), ") {");
      case SOp::ForLanes:
        if (s.code > 0) {
          if (std::string own = d_.for_cached_lanes(
                  var(s.var), var(s.var2), s.index >= 0 ? ref(s.index) : "", ref(s.expr), s.code);
              !own.empty())
            return own;
          if (s.index >= 0) throw std::logic_error("a lanes loop from a start: the CPU target's");
          // A fixed number of steps (unrolled), so per-step arrays stay in registers.
          std::string j = var(s.var2);
          return absl::StrCat(d_.unroll(), "for (uint ", j, " = 0u; ", j, " < ", s.code, "u; ++", j,
                              ") { uint ", var(s.var), " = ", d_.builtin(Builtin::LocalId), " + ",
                              j, " * ", d_.builtin(Builtin::WorkgroupSize), "; if (", var(s.var),
                              " < ", ref(s.expr), ") {");
        }
        return absl::StrCat("for (uint ", var(s.var), " = ", d_.builtin(Builtin::LocalId), "; ",
                            var(s.var), " < ", ref(s.expr), "; ", var(s.var),
                            " += ", d_.builtin(Builtin::WorkgroupSize), ") {");
      case SOp::ForSeq:
        return absl::StrCat("for (uint ", var(s.var), " = 0u; ", var(s.var), " < ", ref(s.expr),
                            "; ++", var(s.var), ") {");
      case SOp::If:
        return absl::StrCat("if (", ref(s.expr), ") {");
      case SOp::End: {
        Stmt opener = open_.back();
        open_.pop_back();
        if (opener.op == SOp::ForGrid && opener.code > 1) return "}}}";
        if (opener.op == SOp::ForLanes && opener.code > 0) return "}}";
        return "}";
      }
      case SOp::Reduce:
      case SOp::ArgReduce:
        return d_.reduce(k_, s);
      case SOp::Barrier:
        return d_.barrier();
      case SOp::Error:
        return absl::StrCat("if (", ref(s.expr), ") { ",
                            d_.error(s, ref(s.index), ref(s.limit), ref(s.args[0])), " }");
      case SOp::DeclArray:
        return absl::StrCat(T(s.type), " ", var(s.var), "[", s.code, "];");
      case SOp::ArrayStore:
        return absl::StrCat(var(s.var), "[", ref(s.index), "] = ", ref(s.expr), ";");
      case SOp::StreamStore:
        return d_.stream_store(
            k_, s.buffer, ref(s.index),
            s.args.empty() ? var(s.var) : absl::StrCat(var(s.var), " + ", ref(s.args[0])),
            ref(s.expr));
      case SOp::SharedStore:
        return absl::StrCat(d_.shared_name(s.buffer), "[", ref(s.index), "] = ", ref(s.expr), ";");
      case SOp::MmaTile: {
        std::vector<std::string> args;
        for (int a : s.args) args.push_back(ref(a));
        return d_.mma_tile(k_, s, args);
      }
      case SOp::Attention: {
        std::vector<std::string> args;
        for (int a : s.args) args.push_back(ref(a));
        return d_.attention(k_, s, args);
      }
      case SOp::Lstm: {
        std::vector<std::string> args;
        for (int a : s.args) args.push_back(ref(a));
        return d_.lstm(k_, s, args);
      }
    }
    return "";
  }

  const KernelDesc& k_;
  const Dialect& d_;
  mutable std::vector<Stmt> open_;  // statements whose End is pending
};

}  // namespace

std::string Dialect::mma_tile(const KernelDesc& k, const Stmt&,
                              const std::vector<std::string>&) const {
  throw Error(absl::StrCat("jit: kernel ", k.name,
                           " uses tensor-core tiles, which this target does not render"));
}

std::string Dialect::lstm(const KernelDesc& k, const Stmt&, const std::vector<std::string>&) const {
  throw Error(absl::StrCat("jit: kernel ", k.name,
                           " uses the fused LSTM recurrence, which this target does not render"));
}

std::string Dialect::attention(const KernelDesc& k, const Stmt&,
                               const std::vector<std::string>&) const {
  throw Error(absl::StrCat("jit: kernel ", k.name,
                           " uses the fused attention tile, which this target does not render"));
}

std::string render(const KernelDesc& k, const Dialect& d) { return Renderer(k, d).run(); }

}  // namespace ember::jit
