#include "train/interrupter.h"

#include <csignal>

namespace ember::train {

namespace {
// The flag SIGINT sets (a lock-free atomic may be stored to from a signal handler).
std::shared_ptr<std::atomic<bool>> sigint_flag;
std::atomic<std::atomic<bool>*> sigint_target{nullptr};

extern "C" void on_sigint(int) {
  std::atomic<bool>* target = sigint_target.load();
  if (target && !target->load()) {
    target->store(true);
  } else {
    std::signal(SIGINT, SIG_DFL);  // the second Ctrl-C
    std::raise(SIGINT);
  }
}
}  // namespace

void Interrupter::install_sigint_handler() const {
  sigint_flag = flag_;
  sigint_target.store(flag_.get());
  std::signal(SIGINT, on_sigint);
}

void Interrupter::remove_sigint_handler() const {
  if (sigint_target.load() != flag_.get()) return;
  std::signal(SIGINT, SIG_DFL);
  sigint_target.store(nullptr);
  sigint_flag.reset();
}

}  // namespace ember::train
