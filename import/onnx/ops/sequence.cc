// Sequences and optionals of tensors: SequenceConstruct/Empty/At/Insert/Erase/Length,
// ConcatFromSequence, SplitToSequence, SequenceMap, Optional, OptionalHasElement,
// OptionalGetElement. A sequence is a list of values; only its tensors reach the device.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"
#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import {
namespace {

// A position in a sequence of n (negative from the end); `end_ok` admits n (insert at the end).
size_t position(NodeContext& c, int input, size_t n, bool end_ok) {
  int64_t p = c.has_input(input) ? static_cast<int64_t>(c.scalar_input(input))
                                 : static_cast<int64_t>(end_ok ? n : n - 1);
  int64_t size = static_cast<int64_t>(n);
  if (p < 0) p += size;
  if (p < 0 || p > size || (p == size && !end_ok)) {
    c.fail("position " + std::to_string(p) + " outside a sequence of " + std::to_string(n));
  }
  return static_cast<size_t>(p);
}

DType dtype_attr(NodeContext& c, DType fallback) {
  if (!c.has_attr("dtype")) return fallback;
  auto dt = to_dtype(static_cast<int32_t>(c.attr_int("dtype", 1)));
  if (!dt) c.fail("dtype Ember lacks");
  return *dt;
}

Outputs construct(NodeContext& c) {
  std::vector<Value> items;
  for (int i = 0; i < c.num_inputs(); ++i) items.push_back(c.input(i));
  return {Value::sequence(items, c.input(0).dtype())};
}

Outputs insert(NodeContext& c) {
  std::vector<Value> items = c.input(0).items();
  size_t at = position(c, 2, items.size(), true);
  items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), c.input(1));
  return {Value::sequence(items, c.input(0).dtype())};
}

Outputs erase(NodeContext& c) {
  std::vector<Value> items = c.input(0).items();
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(position(c, 1, items.size(), false)));
  return {Value::sequence(items, c.input(0).dtype())};
}

Outputs concat_from_sequence(NodeContext& c) {
  const std::vector<Value>& items = c.input(0).items();
  if (items.empty()) c.fail("an empty sequence");
  int rank = items[0].rank();
  bool new_axis = c.attr_int("new_axis", 0);
  int out_rank = rank + (new_axis ? 1 : 0);
  int64_t axis = c.axis(c.attr_int("axis", 0), out_rank);
  std::vector<RawTensor> xs;
  for (const auto& v : items) {
    RawTensor t = v.on(c.device());
    if (new_axis) {
      std::vector<int64_t> dims = v.dims();
      dims.insert(dims.begin() + axis, 1);
      t = ops::reshape(t, dims);
    }
    xs.push_back(t);
  }
  return {Value::tensor(ops::cat(xs, axis), out_rank)};
}

// Pieces along `axis`: of the given sizes, of equal size (a scalar split), or of size 1 (none;
// then `keepdims` 0 drops the axis).
Outputs split_to_sequence(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int rank = c.input(0).rank();
  int64_t axis = c.axis(c.attr_int("axis", 0), rank);
  int64_t n = c.input(0).dims()[axis];
  std::vector<int64_t> sizes;
  bool drop = false;
  if (!c.has_input(1)) {
    sizes.assign(n, 1);
    drop = !c.attr_int("keepdims", 1);
  } else if (c.input(1).rank() == 0) {
    int64_t each = static_cast<int64_t>(c.scalar_input(1));
    for (int64_t at = 0; at < n; at += each) sizes.push_back(std::min(each, n - at));
  } else {
    sizes = c.ints_input(1);
  }
  std::vector<Value> items;
  for (auto& piece : ops::split_with_sizes(x, sizes, axis)) {
    if (!drop) {
      items.push_back(Value::tensor(piece, rank));
      continue;
    }
    std::vector<int64_t> dims = piece.shape().vector();
    dims.erase(dims.begin() + axis);
    items.push_back(Value::tensor(
        ops::reshape(piece, dims.empty() ? std::vector<int64_t>{1} : dims), rank - 1));
  }
  return {Value::sequence(items, x.dtype())};
}

// The body run once per element of the sequence inputs (tensor inputs are passed whole).
Outputs sequence_map(NodeContext& c) {
  const auto* body = c.attr("body");
  if (!body || !body->has_g()) c.fail("no body");
  size_t n = c.input(0).items().size();
  std::vector<std::vector<Value>> outs(body->g().output_size());
  for (size_t i = 0; i < n; ++i) {
    std::vector<Value> in;
    for (int k = 0; k < c.num_inputs(); ++k) {
      const Value& v = c.input(k);
      in.push_back(v.is_tensor() ? v : v.items().at(i));
    }
    std::vector<Value> out = c.run_subgraph(body->g(), in);
    for (size_t k = 0; k < out.size(); ++k) outs[k].push_back(out[k]);
  }
  Outputs result;
  for (const auto& items : outs) {
    DType dt = items.empty() ? c.input(0).dtype() : items[0].dtype();
    result.push_back(Value::sequence(items, dt));
  }
  return result;
}

Outputs optional(NodeContext& c) {
  if (c.has_input(0)) return {Value::optional({c.input(0)})};
  return {Value::optional({})};
}

Outputs optional_get(NodeContext& c) {
  const Value& v = c.input(0);
  if (v.kind() != Value::Kind::Optional) return {v};  // opset 18 also takes the value itself
  if (v.items().empty()) c.fail("the optional is empty");
  return {v.items()[0]};
}

Outputs optional_has(NodeContext& c) {
  bool has =
      c.has_input(0) && (c.input(0).kind() != Value::Kind::Optional || !c.input(0).items().empty());
  return {Value::known(TensorData(std::vector<bool>{has}, Shape{}))};
}

}  // namespace

void register_sequence(Registry& r) {
  // Sequences are not folded at import (their values hold no host contents to fold).
  auto add = [&](const char* op, Converter f, std::vector<std::string> attrs = {}) {
    r.add(op, {std::move(f), std::move(attrs), nullptr, /*foldable=*/false});
  };
  add("SequenceConstruct", construct);
  add("SequenceEmpty",
      [](NodeContext& c) { return Outputs{Value::sequence({}, dtype_attr(c, DType::F32))}; },
      {"dtype"});
  add("SequenceAt", [](NodeContext& c) {
    const auto& items = c.input(0).items();
    return Outputs{items[position(c, 1, items.size(), false)]};
  });
  add("SequenceInsert", insert);
  add("SequenceErase", erase);
  add("SequenceLength", [](NodeContext& c) {
    auto n = static_cast<int64_t>(c.input(0).items().size());
    return Outputs{Value::known(TensorData(std::vector<int64_t>{n}, Shape{}))};
  });
  add("ConcatFromSequence", concat_from_sequence, {"axis", "new_axis"});
  add("SplitToSequence", split_to_sequence, {"axis", "keepdims"});
  add("SequenceMap", sequence_map, {"body"});
  add("Optional", optional, {"type"});
  add("OptionalGetElement", optional_get);
  add("OptionalHasElement", optional_has);
}

}  // namespace ember::onnx_import
