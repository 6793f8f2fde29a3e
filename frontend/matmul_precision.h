#pragma once
// Precision of f32 matmuls on GPUs with tensor cores. Highest (the default) keeps f32 matmuls
// exact in f32; High lets them run on TF32 tensor cores (10-bit mantissa inputs, f32
// accumulation), as PyTorch's torch.backends.cuda.matmul.allow_tf32. f16 and bf16 matmuls use
// tensor cores either way. Process-wide; takes effect at the next flush.
namespace ember {

enum class MatmulPrecision { Highest, High };

void set_matmul_precision(MatmulPrecision precision);
MatmulPrecision matmul_precision();

}  // namespace ember
