#include "kernels/row/split_reductions.h"

#include "ir/rewrite.h"

namespace ember::jit {
namespace {

// Reductions at least this long over at most this many rows are split into chunks of a power of
// two between kMinChunk and sqrt(length).
constexpr int64_t kMinLength = 16384;
constexpr int64_t kMaxRows = 128;
constexpr int64_t kMinChunk = 256;

// The chunk length for reducing `n` of `node`, or 0 to leave it whole.
int64_t split_chunk(const ir::Graph& g, const ir::Node& n) {
  if (n.op != ir::OpKind::Reduce) return 0;
  const auto& a = n.get<ir::ReduceAttrs>();
  if (a.fn == ir::ReduceFn::ArgMax || a.fn == ir::ReduceFn::ArgMin) return 0;
  const TensorType& in = g.type(n.inputs[0]);
  // Partial results keep the input's dtype: halves would lose the f32 accumulation.
  if (in.dtype == DType::F16 || in.dtype == DType::BF16 || in.dtype == DType::U8 ||
      in.dtype == DType::Bool) {
    return 0;
  }
  int64_t len = in.shape[a.axis];
  if (len < kMinLength || in.shape.numel() / len > kMaxRows) return 0;
  int64_t chunk = kMinChunk;
  while ((chunk * 2) * (chunk * 2) <= len && len % (chunk * 2) == 0) chunk *= 2;
  return len % chunk == 0 ? chunk : 0;
}

}  // namespace

bool has_long_reductions(const ir::Graph& g) {
  for (const ir::Node& n : g.nodes()) {
    if (split_chunk(g, n) > 0) return true;
  }
  return false;
}

ir::Graph split_long_reductions(const ir::Graph& g, std::vector<ir::ValueId>& outputs) {
  return ir::rewrite(
      g, outputs,
      [&](ir::Builder& b, const ir::Node& n, ir::ValueId,
          const ir::ValueIds& args) -> std::optional<ir::ValueId> {
        int64_t chunk = split_chunk(g, n);
        if (chunk == 0) return std::nullopt;
        const auto& a = n.get<ir::ReduceAttrs>();
        std::vector<int64_t> dims = g.type(n.inputs[0]).shape.vector();
        int64_t len = dims[a.axis];
        dims[a.axis] = chunk;
        dims.insert(dims.begin() + a.axis, len / chunk);  // [.., len / chunk, chunk, ..]
        ir::ValueId split = b.reshape(args[0], Shape(dims));
        ir::ValueId partial = b.reduce(a.fn, split, a.axis + 1);
        dims.erase(dims.begin() + a.axis + 1);  // [.., len / chunk, ..]: a view of the partials
        ir::ValueId partials = b.reshape(partial, Shape(dims));
        return b.reduce(a.fn, partials, a.axis);  // n's own shape: no copy after it
      });
}

}  // namespace ember::jit
