#pragma once
// The rnn family's hand-written CUDA device code, embedded from the .cuh file beside this header
// at build time (kernels/CMakeLists.txt).
namespace ember::kernels::rnn {

extern const char kLstmCuh[];  // lstm.cuh: the LSTM recurrence, forward and gradient

}  // namespace ember::kernels::rnn
