#pragma once
// The block-tile parts of CUDA kernels: the mma.sync and wgmma tensor-core templates and the f32
// vector tile (MmaShape::F32Simt) that an SOp::MmaTile statement calls, and the call itself.
#include <string>
#include <vector>

#include "jit/codegen/kernel.h"

namespace ember::jit {

// Device code the kernel's MmaTile, Attention and Lstm statements need (empty when it has none).
std::string tensor_core_helpers(const KernelDesc& k);

// The statement computing tile `m` into accumulator array `acc`: operands A and B (buffer
// names) with the statement's rendered arguments (see Stmt::args).
std::string tensor_core_call(const MmaShape& m, const std::string& a, const std::string& b,
                             const std::vector<std::string>& args, const std::string& acc);

// The fused attention tile of statement s (SOp::Attention) with its rendered arguments.
std::string attention_call(const Stmt& s, const std::vector<std::string>& args);

// The fused LSTM recurrence's workgroup of statement s (SOp::Lstm) with its rendered arguments.
std::string lstm_call(const Stmt& s, const std::vector<std::string>& args);

}  // namespace ember::jit
