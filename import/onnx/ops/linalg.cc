// MatMul, Gemm and Einsum.

#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

// NumPy matmul: 1-D operands become a row (left) or column (right) and lose that dim again;
// batch dims broadcast.
Outputs matmul(NodeContext& c) {
  RawTensor a = c.tensor(0), b = c.tensor(1);
  int ra = c.input(0).rank(), rb = c.input(1).rank();
  if (ra == 1) a = ops::reshape(a, {1, a.shape()[0]});
  if (rb == 1) b = ops::reshape(b, {b.shape()[0], 1});
  int r = std::max(a.rank(), b.rank());
  RawTensor y = ops::matmul(align(a, r), align(b, r));
  std::vector<int64_t> dims = y.shape().vector();
  if (rb == 1) dims.erase(dims.end() - 1);
  if (ra == 1) dims.erase(dims.end() - (rb == 1 ? 1 : 2));
  int out_rank = static_cast<int>(dims.size());
  if (dims.empty()) dims.push_back(1);
  return {Value::tensor(ops::reshape(y, dims), out_rank)};
}

Outputs gemm(NodeContext& c) {
  RawTensor a = c.tensor(0), b = c.tensor(1);
  if (c.attr_int("transA", 0)) a = ops::transpose(a);
  if (c.attr_int("transB", 0)) b = ops::transpose(b);
  RawTensor y = ops::matmul(a, b);
  double alpha = c.attr_float("alpha", 1.0f), beta = c.attr_float("beta", 1.0f);
  if (alpha != 1.0) y = bin(BinaryFn::Mul, y, alpha);
  if (c.has_input(2)) {
    RawTensor bias = c.tensor(2);
    if (beta != 1.0) bias = bin(BinaryFn::Mul, bias, beta);
    y = bin(BinaryFn::Add, y, bias);
  }
  return {Value::tensor(y, 2)};
}

struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;
};

std::string strip(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch != ' ') out += ch;
  }
  return out;
}

// The ellipsis of a term with `rank` dims, as letters '0', '1', ...: the broadcast dims are
// aligned from the right across the operands (the first of `total` letters are the leading ones).
std::string expand_ellipsis(const std::string& term, int rank, int total) {
  size_t at = term.find("...");
  if (at == std::string::npos) return term;
  int explicit_dims = static_cast<int>(term.size()) - 3;
  int n = rank - explicit_dims;
  std::string dots;
  for (int k = total - n; k < total; ++k) dots += static_cast<char>('0' + k);
  return term.substr(0, at) + dots + term.substr(at + 3);
}

// Parses `eq` for operands of the given ranks (empty: no ellipsis expansion, for checks).
EinsumSpec parse_einsum(const std::string& eq, const std::vector<int>& ranks = {}) {
  EinsumSpec spec;
  std::string e = strip(eq);
  size_t arrow = e.find("->");
  std::string lhs = arrow == std::string::npos ? e : e.substr(0, arrow);
  size_t pos = 0;
  while (true) {
    size_t comma = lhs.find(',', pos);
    spec.inputs.push_back(lhs.substr(pos, comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  int total = 0;  // the most dims an ellipsis stands for
  for (size_t i = 0; i < spec.inputs.size() && i < ranks.size(); ++i) {
    if (spec.inputs[i].find("...") != std::string::npos) {
      total = std::max(total, ranks[i] - static_cast<int>(spec.inputs[i].size()) + 3);
    }
  }
  if (!ranks.empty()) {
    for (size_t i = 0; i < spec.inputs.size(); ++i) {
      spec.inputs[i] = expand_ellipsis(spec.inputs[i], ranks.at(i), total);
    }
  }
  std::string dots;
  for (int k = 0; k < total; ++k) dots += static_cast<char>('0' + k);
  if (arrow != std::string::npos) {
    spec.output = e.substr(arrow + 2);
    size_t at = spec.output.find("...");
    if (at != std::string::npos) spec.output.replace(at, 3, dots);
  } else {
    // Implicit output: the broadcast dims, then the letters used once, in alphabetical order.
    std::map<char, int> count;
    for (const auto& in : spec.inputs) {
      for (char ch : in) ++count[ch];
    }
    spec.output = dots;
    for (const auto& [ch, n] : count) {
      if (n == 1 && !(ch >= '0' && ch <= '9')) spec.output += ch;
    }
  }
  return spec;
}

// A letter repeated in one term takes the diagonal: x times an identity over the two dims,
// summed over the second; the term loses that letter's second occurrence.
RawTensor take_diagonals(RawTensor x, std::string& term) {
  for (size_t q = 0; q < term.size(); ++q) {
    size_t p = term.find(term[q]);
    if (p == q) continue;
    int64_t n = x.shape()[static_cast<int>(q)];
    std::vector<int64_t> vp(x.rank(), 1), vq(x.rank(), 1);
    vp[p] = n;
    vq[q] = n;
    RawTensor ip = ops::reshape(ops::arange(0, n, 1, DType::I64, x.device()), vp);
    RawTensor iq = ops::reshape(ops::arange(0, n, 1, DType::I64, x.device()), vq);
    RawTensor eye = ops::cast(bin(BinaryFn::Eq, ip, iq), x.dtype());
    x = ops::squeeze(ops::reduce_dim(ir::ReduceFn::Sum, bin(BinaryFn::Mul, x, eye), q), q);
    term.erase(q, 1);
    --q;
  }
  return x;
}

// Every operand laid out over all letters (size 1 where it lacks one), multiplied with
// broadcasting, then summed over the letters the output drops.
Outputs einsum(NodeContext& c) {
  std::vector<int> ranks;
  for (int i = 0; i < c.num_inputs(); ++i) ranks.push_back(c.input(i).rank());
  EinsumSpec spec = parse_einsum(c.attr_string("equation", ""), ranks);
  if (static_cast<int>(spec.inputs.size()) != c.num_inputs()) c.fail("operand count mismatch");
  std::string letters = spec.output;
  for (const auto& in : spec.inputs) {
    for (char ch : in) {
      if (letters.find(ch) == std::string::npos) letters += ch;
    }
  }
  int n = static_cast<int>(letters.size());

  RawTensor acc;
  for (int i = 0; i < c.num_inputs(); ++i) {
    std::string term = spec.inputs[i];
    RawTensor x = take_diagonals(c.tensor(i), term);
    std::vector<int64_t> perm, view;
    for (char ch : letters) {
      size_t p = term.find(ch);
      if (p != std::string::npos) perm.push_back(static_cast<int64_t>(p));
    }
    if (!term.empty()) x = ops::permute(x, perm);
    size_t k = 0;
    for (char ch : letters) {
      view.push_back(term.find(ch) != std::string::npos ? x.shape()[static_cast<int>(k++)] : 1);
    }
    x = ops::reshape(x, view.empty() ? std::vector<int64_t>{1} : view);
    acc = acc.defined() ? bin(BinaryFn::Mul, acc, x) : x;
  }
  for (int d = n - 1; d >= static_cast<int>(spec.output.size()); --d) {
    acc = ops::reduce_dim(ir::ReduceFn::Sum, acc, d);
  }
  int out_rank = static_cast<int>(spec.output.size());
  std::vector<int64_t> dims(acc.shape().dims.begin(), acc.shape().dims.begin() + out_rank);
  if (dims.empty()) dims.push_back(1);
  return {Value::tensor(ops::reshape(acc, dims), out_rank)};
}

// Determinants of [..., n, n] by Gaussian elimination with partial pivoting, unrolled over n:
// each step swaps the largest remaining pivot up (a gather of the rows), multiplies it into
// the determinant (negated by a swap) and eliminates the rows below.
Outputs det(NodeContext& c) {
  RawTensor a = c.tensor(0);
  int r = a.rank();
  int64_t n = a.shape()[r - 1];
  const Device& dev = a.device();
  std::vector<int64_t> col_view(r, 1);
  col_view[r - 2] = n;
  RawTensor rows = ops::reshape(ops::arange(0, n, 1, DType::I64, dev), col_view);  // [.., n, 1]
  RawTensor d = ops::full(Shape::ones(r), Scalar(1.0), a.dtype(), dev);
  for (int64_t k = 0; k < n; ++k) {
    RawTensor col = un(UnaryFn::Abs, ops::narrow(a, -1, k, 1));  // [.., n, 1]
    col = where(bin(BinaryFn::Lt, rows, static_cast<double>(k)), scalar_like(col, -1), col);
    RawTensor p = ops::cast(ops::reduce_dim(ir::ReduceFn::ArgMax, col, r - 2), DType::I64);
    // Row order after swapping rows k and p: k <- p, p <- k, the others stay.
    RawTensor is_k = bin(BinaryFn::Eq, rows, static_cast<double>(k));
    RawTensor order = where(is_k, p, where(bin(BinaryFn::Eq, rows, p), scalar_like(rows, k), rows));
    a = ops::gather(a, r - 2, ops::expand(order, a.shape().vector()));
    RawTensor swapped = bin(BinaryFn::Ne, p, static_cast<double>(k));
    RawTensor pivot = ops::narrow(ops::narrow(a, -2, k, 1), -1, k, 1);  // [.., 1, 1]
    d = bin(BinaryFn::Mul, d, where(swapped, un(UnaryFn::Neg, pivot), pivot));
    RawTensor safe = where(bin(BinaryFn::Eq, pivot, 0.0), scalar_like(pivot, 1), pivot);
    RawTensor below = ops::cast(bin(BinaryFn::Gt, rows, static_cast<double>(k)), a.dtype());
    RawTensor factor =
        bin(BinaryFn::Mul, bin(BinaryFn::Div, ops::narrow(a, -1, k, 1), safe), below);
    a = bin(BinaryFn::Sub, a, bin(BinaryFn::Mul, factor, ops::narrow(a, -2, k, 1)));
  }
  std::vector<int64_t> out(a.shape().dims.begin(), a.shape().dims.end() - 2);
  int out_rank = static_cast<int>(out.size());
  if (out.empty()) out.push_back(1);
  return {Value::tensor(ops::reshape(d, out), out_rank)};
}

}  // namespace

void register_linalg(Registry& r) {
  r.add("MatMul", {matmul, {}});
  r.add("Gemm", {gemm, {"alpha", "beta", "transA", "transB"}});
  r.add("Einsum", {einsum, {"equation"}});
  r.add("Det", {det, {}});
}

}  // namespace ember::onnx_import
