#pragma once
// Which matmul templates a flush may use beyond the exact ones: TF32 tensor cores for f32
// (opt-in, as PyTorch's allow_tf32), and tensor cores at all (EMBER_MMA=0 turns them off for
// every dtype: the SIMT baseline). EMBER_TMA=0 keeps Hopper's wgmma tiles on cp.async copies
// instead of the copy engine (tensor maps): for comparing the two.
namespace ember::jit {

void set_allow_tf32(bool allow);
bool allow_tf32();
bool tensor_cores_enabled();
bool tma_enabled();

}  // namespace ember::jit
