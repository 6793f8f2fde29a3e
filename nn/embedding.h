#pragma once
// Embedding: a lookup table of n_embedding rows of d_model values (Burn's nn::Embedding, drawn
// from a standard normal by default).
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/initializer.h"
#include "nn/module.h"

namespace ember::nn {

class Embedding {
 public:
  Param<Tensor<2>> weight;  // [n_embedding, d_model]

  int64_t n_embedding() const { return weight.shape()[0]; }
  int64_t d_model() const { return weight.shape()[1]; }
  // Indices [...] of rank D -> [..., d_model]. An index outside [0, n_embedding) fails when the
  // result is read (a data-dependent error).
  template <int D>
  Tensor<D + 1> forward(const Tensor<D, Int>& indices) const {
    Shape out = indices.shape();
    out.dims.push_back(d_model());
    auto flat = indices.template reshape<1>(Shape{-1});
    return weight.val().select(0, flat).template reshape<D + 1>(out);
  }
  void display_attributes(Attributes& a) const {
    a.add("n_embedding", n_embedding()).add("d_model", d_model());
  }
  EMBER_MODULE(Embedding, weight)
};

struct EmbeddingConfig {
  int64_t n_embedding = 0;
  int64_t d_model = 0;
  Initializer initializer = Initializer::normal(0, 1);
  EmbeddingConfig(int64_t n_embedding, int64_t d_model)
      : n_embedding(n_embedding), d_model(d_model) {}
  Embedding init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(EmbeddingConfig, n_embedding, d_model, initializer)
};

}  // namespace ember::nn
