#pragma once
// The op groups, each registering its converters (one file per group under ops/).
#include "import/onnx/registry.h"

namespace ember::onnx_import {

void register_elementwise(Registry& r);
void register_activation(Registry& r);
void register_reduce(Registry& r);
void register_shape(Registry& r);
void register_index(Registry& r);
void register_linalg(Registry& r);
void register_conv(Registry& r);
void register_norm(Registry& r);
void register_resample(Registry& r);
void register_loss(Registry& r);
void register_window(Registry& r);
void register_random(Registry& r);
void register_quantize(Registry& r);
void register_rnn(Registry& r);
void register_grid_sample(Registry& r);
void register_control(Registry& r);
void register_sequence(Registry& r);
void register_data_dependent(Registry& r);
void register_training(Registry& r);
void register_spectral(Registry& r);
void register_roi_align(Registry& r);

}  // namespace ember::onnx_import
