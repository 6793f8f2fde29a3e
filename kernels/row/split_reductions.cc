#include "kernels/row/split_reductions.h"

#include "ir/rewrite.h"
#include "kernels/row/tuning.h"

namespace ember::jit {
namespace {

// Reductions at least this long over at most this many rows are split into chunks of a power of
// two between kMinChunk and sqrt(length).
constexpr int64_t kMinLength = 16384;
constexpr int64_t kMaxRows = 128;
constexpr int64_t kMinChunk = 256;
// Column sums (strided rows too few for a thread each: a backward pass's bias gradients, 768 or
// 3072 columns of 8192 rows) are split into up to kColumnParts parts of at least
// kMinColumnChunk rows, so that the first pass has a thread per column and part, reading
// consecutive columns together. Measured on an H100: a workgroup per column ran at 270 GB/s.
constexpr int64_t kMinColumnLength = 1024;
constexpr int64_t kColumnThreads = 65536;
constexpr int64_t kMinColumnChunk = 64;

struct Split {
  int64_t chunk = 0;   // 0: left whole
  bool widen = false;  // the partial results in f32 (halves keep their f32 accumulation)
};

bool is_half(DType t) { return t == DType::F16 || t == DType::BF16; }

// How reduction n is split.
Split split_of(const ir::Graph& g, const ir::Node& n, bool columns) {
  if (n.op != ir::OpKind::Reduce) return {};
  const auto& a = n.get<ir::ReduceAttrs>();
  if (a.fn == ir::ReduceFn::ArgMax || a.fn == ir::ReduceFn::ArgMin) return {};
  const TensorType& in = g.type(n.inputs[0]);
  if (in.dtype == DType::U8 || in.dtype == DType::Bool) return {};
  const int64_t len = in.shape[a.axis];
  const int64_t rows = len == 0 ? 0 : in.shape.numel() / len;
  int64_t inner = 1;
  for (int d = a.axis + 1; d < in.shape.rank(); ++d) inner *= in.shape[d];
  if (columns && inner >= 32 && len >= kMinColumnLength && rows < kThreadRowsMinLongRows) {
    int64_t parts = 1;
    while (rows * parts < kColumnThreads && len % (parts * 2) == 0 &&
           len / (parts * 2) >= kMinColumnChunk) {
      parts *= 2;
    }
    if (parts >= 4) return {len / parts, is_half(in.dtype)};
  }
  // Partial results keep the input's dtype here: halves would lose the f32 accumulation.
  if (is_half(in.dtype) || len < kMinLength || rows > kMaxRows) return {};
  int64_t chunk = kMinChunk;
  while ((chunk * 2) * (chunk * 2) <= len && len % (chunk * 2) == 0) chunk *= 2;
  return {len % chunk == 0 ? chunk : 0, false};
}

}  // namespace

bool has_long_reductions(const ir::Graph& g, bool columns) {
  for (const ir::Node& n : g.nodes()) {
    if (split_of(g, n, columns).chunk > 0) return true;
  }
  return false;
}

ir::Graph split_long_reductions(const ir::Graph& g, std::vector<ir::ValueId>& outputs, bool columns,
                                std::vector<ir::ValueId>* old_to_new) {
  return ir::rewrite(
      g, outputs,
      [&](ir::Builder& b, const ir::Node& n, ir::ValueId, const ir::ValueIds& args,
          const std::vector<ir::ValueId>&) -> std::optional<ir::ValueId> {
        const Split s = split_of(g, n, columns);
        if (s.chunk == 0) return std::nullopt;
        const auto& a = n.get<ir::ReduceAttrs>();
        std::vector<int64_t> dims = g.type(n.inputs[0]).shape.vector();
        int64_t len = dims[a.axis];
        dims[a.axis] = s.chunk;
        dims.insert(dims.begin() + a.axis, len / s.chunk);  // [.., len / chunk, chunk, ..]
        ir::ValueId split = b.reshape(args[0], Shape(dims));
        if (s.widen) split = b.cast(split, DType::F32);
        ir::ValueId partial = b.reduce(a.fn, split, a.axis + 1);
        dims.erase(dims.begin() + a.axis + 1);  // [.., len / chunk, ..]: a view of the partials
        ir::ValueId partials = b.reshape(partial, Shape(dims));
        ir::ValueId out = b.reduce(a.fn, partials, a.axis);  // n's own shape: no copy after it
        return s.widen ? b.cast(out, n.type.dtype) : out;
      },
      old_to_new);
}

}  // namespace ember::jit
