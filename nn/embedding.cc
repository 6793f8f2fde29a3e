#include "nn/embedding.h"

namespace ember::nn {

Embedding EmbeddingConfig::init(const Device& device) const {
  detail::check_positive("EmbeddingConfig", "n_embedding", static_cast<double>(n_embedding));
  detail::check_positive("EmbeddingConfig", "d_model", static_cast<double>(d_model));
  Embedding e;
  e.weight = initializer.init_param<2>(Shape{n_embedding, d_model}, device, n_embedding, d_model);
  return e;
}

}  // namespace ember::nn
