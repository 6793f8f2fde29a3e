#pragma once
// Grid functions (Burn's burn::tensor::grid).
#include <array>

#include "frontend/tensor.h"

namespace ember::grid {

enum class GridIndexing {
  Matrix,     // "ij": output i varies along dim i
  Cartesian,  // "xy": the first two dims swapped
};

template <size_t N, class K>
std::array<Tensor<static_cast<int>(N), K>, N> meshgrid(const std::array<Tensor<1, K>, N>& xs,
                                                       GridIndexing indexing) {
  std::vector<RawTensor> raws;
  for (const auto& x : xs) raws.push_back(x.raw());
  auto out = ops::meshgrid(raws, indexing == GridIndexing::Matrix);
  std::array<Tensor<static_cast<int>(N), K>, N> result;
  for (size_t i = 0; i < N; ++i) result[i] = Tensor<static_cast<int>(N), K>(out[i]);
  return result;
}

}  // namespace ember::grid
