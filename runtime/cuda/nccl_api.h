#pragma once
// NCCL, resolved at run time with dlopen (libnccl.so.2, or $EMBER_NCCL_LIBRARY): a binary
// without it runs and reports collectives unavailable. Headers come from the CUDA toolkit.
#include <nccl.h>

#include <string>

namespace ember::runtime::cuda {

// clang-format off: one entry per line (clang-format does not keep X-macro lists stable)
#define EMBER_NCCL_FUNCS(X) \
  X(ncclGetVersion)         \
  X(ncclGetUniqueId)        \
  X(ncclCommInitRank)       \
  X(ncclCommInitAll)        \
  X(ncclCommDestroy)        \
  X(ncclCommAbort)          \
  X(ncclCommGetAsyncError)  \
  X(ncclGetErrorString)     \
  X(ncclAllReduce)          \
  X(ncclBroadcast)          \
  X(ncclAllGather)          \
  X(ncclReduceScatter)      \
  X(ncclGroupStart)         \
  X(ncclGroupEnd)
// clang-format on

struct Nccl {
#define EMBER_NCCL_DECLARE(name) decltype(&::name) name = nullptr;
  EMBER_NCCL_FUNCS(EMBER_NCCL_DECLARE)
#undef EMBER_NCCL_DECLARE
};

// Null (with the reason in `why`) when the library cannot be loaded.
const Nccl* nccl(std::string* why = nullptr);

// Throws ember::Error naming `what` and NCCL's message unless r is ncclSuccess.
void check_nccl(ncclResult_t r, const std::string& what);

}  // namespace ember::runtime::cuda
