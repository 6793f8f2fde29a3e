#pragma once
// How the tile templates (tensor cores, the f32 vector tile) read a matmul's operands: straight
// from memory, as strided views of stored buffers. Whether a tile variant is admitted for a
// kernel is decided here, once, before anything is lowered.
#include <optional>
#include <vector>

#include "jit/codegen/emitter.h"
#include "kernels/kernel_plan.h"
#include "kernels/matmul/tiles.h"

namespace ember::jit {

// A matmul operand read straight from memory: a stored value, or permutes, broadcasts, slices
// and reshapes (where strides allow) of one, as an element offset and strides over the operand's
// own dims.
struct StridedOperand {
  ir::ValueId stored;
  int64_t offset;
  std::vector<int64_t> strides;
};

// How the tile reads one operand: which of its two matrix dims is contiguous and the other's
// stride. Copies move 16-byte chunks, so offsets and strides must be multiples of a chunk's
// elements.
struct MmaOperand {
  StridedOperand view;
  bool kmajor;
  int64_t ld;
};

struct TileOperands {
  MmaShape shape;  // the template, tile and operand majorness (not yet the copy engine)
  MmaOperand a, b;
};

// Whether an 8-warp wgmma tile reads operands a and b of an M x N x K product with `batch`
// matrices through the copy engine: one non-empty matrix (a batch would need a map per matrix)
// whose row strides are at least its rows' length (tensor maps), EMBER_TMA not 0.
bool copy_engine_fits(const MmaTile& tile, const MmaOperand& a, const MmaOperand& b, int64_t M,
                      int64_t N, int64_t K, int64_t batch);

// The tile template's view of kernel kp's operands for variant v (v.mma > 0: tensor-core tile,
// where a wgmma tile that the operands do not suit becomes its mma.sync twin; else the f32
// vector tile); nullopt when the operands do not suit it.
std::optional<TileOperands> tile_operands(const ir::Graph& g, const Plan& plan,
                                          const Emitter::LayoutFn& layout, const KernelPlan& kp,
                                          const MatmulVariant& v);

// Operand v as a strided view of a stored value: a stored value as `layout` gives it, or
// permutes, broadcasts, slices and reshapes of one; nullopt otherwise.
std::optional<StridedOperand> strided_operand(const ir::Graph& g, const std::vector<char>& stored,
                                              const Emitter::LayoutFn& layout, ir::ValueId v);

// Operand v as a strided view of a stored value (per `stored`, laid out contiguously, as values
// computed in a flush are), if it is one.
std::optional<StridedOperand> strided_view(const ir::Graph& g, const std::vector<char>& stored,
                                           ir::ValueId v);

// Whether operand v of a matmul reads as a strided view of stored values (per `stored`, laid
// out contiguously, as values computed in a flush are): what the tile templates need.
bool reads_as_strided_view(const ir::Graph& g, const std::vector<char>& stored, ir::ValueId v);

// Whether a tile template can read operand v in place: a strided view (as strided_view gives
// it) with one of its two matrix dims contiguous and the rest aligned to 16-byte copies.
bool tile_reads_in_place(const ir::Graph& g, const std::vector<char>& stored, ir::ValueId v);

// The variant kp runs given what its operands admit: a tile the operands do not suit becomes the
// SIMT template (block 8 in place of the vector tile), a wgmma tile that cannot read them its
// mma.sync twin.
MatmulVariant admitted(const ir::Graph& g, const Plan& plan, const Emitter::LayoutFn& layout,
                       const KernelPlan& kp, MatmulVariant v);

}  // namespace ember::jit
