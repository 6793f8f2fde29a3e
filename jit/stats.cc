#include "jit/stats.h"

namespace ember::jit {

Counters& counters() {
  static Counters c;
  return c;
}

}  // namespace ember::jit
