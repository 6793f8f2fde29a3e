#include "kernels/matmul/split_k.h"

#include <cstdlib>
#include <string>

#include "ir/rewrite.h"
#include "kernels/matmul/tuning.h"

namespace ember::jit {
namespace {

constexpr int kMaxParts = 16;

// EMBER_SPLIT_K=S for S a power of two in 2..16, else 0.
int requested_parts() {
  const char* env = std::getenv("EMBER_SPLIT_K");
  int s = env ? std::atoi(env) : 0;
  return s >= 2 && s <= kMaxParts && (s & (s - 1)) == 0 ? s : 0;
}

// Tensor-core products with few output tiles and a long K (a weight gradient: 768 x 768 over
// 8192 tokens gave 36 workgroups of 128 x 128 on 132 SMs, at 67 TFLOP/s on an H100) are split
// until they have about two tiles of 128 x 128 per SM of a large GPU, each part at least
// kMinPartK long.
constexpr int64_t kWantedTiles = 264;
constexpr int64_t kMinPartK = 512;

int auto_parts(const Shape& out, int64_t k) {
  const int r = out.rank();
  int64_t tiles = (out[r - 2] + 127) / 128 * ((out[r - 1] + 127) / 128);
  for (int d = 0; d < r - 2; ++d) tiles *= out[d];
  int parts = 1;
  while (tiles * parts < kWantedTiles && parts < kMaxParts && k % (64 * parts * 2) == 0 &&
         k / (parts * 2) >= kMinPartK) {
    parts *= 2;
  }
  return parts;
}

// f32 weight gradients on the SIMT tiles (A a transposed view: x^T dy) with fewer 128 x 128
// output tiles than half the device's compute units and a very long K are split until the tiles
// fill the units once, each part at least kMinSimtPartK long: an LSTM's [512, 2048] over 16384
// steps and rows ran 64 workgroups at 1.60 ms, four parts 0.77 ms (H200, session 30). Products
// of plain operands keep their tiles (a 1024 x 16384 x 1024 one ran 1.60 ms split in four
// against 1.22 whole on the H100, run 66), and so do shorter ones (splitting mlp_train_step's,
// 128 tiles over K 1024..2048, cost more than it gained, session 29).
constexpr int64_t kMinSimtK = 8192, kMinSimtPartK = 2048;

int simt_parts(const Shape& out, int64_t k, int64_t compute_units) {
  const int r = out.rank();
  int64_t tiles = (out[r - 2] + 127) / 128 * ((out[r - 1] + 127) / 128);
  for (int d = 0; d < r - 2; ++d) tiles *= out[d];
  if (compute_units == 0 || 2 * tiles > compute_units || k < kMinSimtK) return 1;
  int parts = 1;
  while (tiles * parts < compute_units && parts < kMaxParts && k % (64 * parts * 2) == 0 &&
         k / (parts * 2) >= kMinSimtPartK) {
    parts *= 2;
  }
  return parts;
}

}  // namespace

int split_k_requested() { return requested_parts(); }

bool auto_split_k() {
  const char* env = std::getenv("EMBER_AUTO_SPLIT_K");  // read each time: A/B runs switch it
  return env == nullptr || std::string(env) != "0";
}

int split_k_parts(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend) {
  const ir::Node& n = g.node(mm);
  if (n.op != ir::OpKind::Matmul) return 1;
  const Shape& a = g.type(n.inputs[0]).shape;
  const int64_t k = a[a.rank() - 1];
  if (wants_mma(g, mm, backend)) return auto_split_k() ? auto_parts(n.type.shape, k) : 1;
  const int s = requested_parts();
  if (n.type.dtype != DType::F32) return 1;
  if (s == 0) {
    const bool transposed_a = g.node(n.inputs[0]).op == ir::OpKind::Permute;
    return auto_split_k() && transposed_a ? simt_parts(n.type.shape, k, backend.compute_units())
                                          : 1;
  }
  return k % s == 0 ? s : 1;
}

bool has_split_k(const ir::Graph& g, const runtime::Backend& backend) {
  if (requested_parts() == 0 && !auto_split_k()) return false;
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    if (g.node(v).op == ir::OpKind::Matmul && split_k_parts(g, v, backend) > 1) return true;
  }
  return false;
}

ir::Graph split_k_matmuls(const ir::Graph& g, std::vector<ir::ValueId>& outputs,
                          const runtime::Backend& backend, std::vector<ir::ValueId>* old_to_new) {
  return ir::rewrite(
      g, outputs,
      [&](ir::Builder& b, const ir::Node& n, ir::ValueId id, const ir::ValueIds& args,
          const std::vector<ir::ValueId>&) -> std::optional<ir::ValueId> {
        const int parts = n.op == ir::OpKind::Matmul ? split_k_parts(g, id, backend) : 1;
        if (parts == 1) return std::nullopt;
        // a [.., M, K] -> [.., M, S, K/S] -> [.., S, M, K/S]; b [.., K, N] -> [.., S, K/S, N].
        std::vector<int64_t> a_split = g.type(n.inputs[0]).shape.vector();
        std::vector<int64_t> b_split = g.type(n.inputs[1]).shape.vector();
        const int r = static_cast<int>(a_split.size());
        const int64_t K = a_split[r - 1];
        a_split.back() = K / parts;
        a_split.insert(a_split.end() - 1, parts);
        std::vector<int> perm;
        for (int d = 0; d < r - 2; ++d) perm.push_back(d);
        perm.insert(perm.end(), {r - 1, r - 2, r});
        ir::ValueId a = b.permute(b.reshape(args[0], Shape(a_split)), perm);
        b_split[r - 2] = K / parts;
        b_split.insert(b_split.end() - 2, parts);
        ir::ValueId partial = b.matmul(a, b.reshape(args[1], Shape(b_split)));  // [.., S, M, N]
        // Halves: the parts leave the kernel as their f32 accumulators, summed in f32 and
        // rounded once, as the whole product would be.
        const bool half = n.type.dtype == DType::F16 || n.type.dtype == DType::BF16;
        if (half) partial = b.cast(partial, DType::F32);
        ir::ValueId sum = b.reduce(ir::ReduceFn::Sum, partial, r - 2);  // [.., 1, M, N]
        if (half) sum = b.cast(sum, n.type.dtype);
        return b.reshape(sum, n.type.shape);
      },
      old_to_new);
}

}  // namespace ember::jit
