#pragma once
// How the ranks of a group find each other before NCCL takes over: rank 0 makes the group's id
// and publishes it through a file or a TCP socket; the other ranks fetch it. Internal to the
// frontend.
#include <functional>
#include <memory>
#include <string>

#include "runtime/collectives.h"

namespace ember::detail {

class IdExchange {
 public:
  virtual ~IdExchange() = default;
  // Rank 0: publishes `id` (returns at once); others: waits for it and returns it.
  virtual runtime::CommId share(int rank, const runtime::CommId& id) = 0;
  // Called on every rank once the group is joined (rank 0 removes what it published).
  virtual void done(int rank) = 0;
};

// "file:PATH" or "tcp://HOST:PORT"; throws ember::Error naming `init` otherwise.
std::unique_ptr<IdExchange> id_exchange(const std::string& init, int world_size);

// Seconds a rank waits for the id (EMBER_DIST_INIT_TIMEOUT_S, default 300).
double init_timeout_seconds();

}  // namespace ember::detail
