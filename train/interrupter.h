#pragma once
// Stopping a run from outside the training loop (Burn's TrainingInterrupter): stop() from any
// thread, or Ctrl-C once install_sigint_handler() has run; the Learner checks at every step
// boundary, saves a checkpoint and returns. A second Ctrl-C ends the program as usual.
#include <atomic>
#include <memory>

namespace ember::train {

class Interrupter {
 public:
  Interrupter() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void stop() { flag_->store(true); }
  bool should_stop() const { return flag_->load(); }
  void reset() { flag_->store(false); }
  // SIGINT stops this interrupter (copies share its flag) instead of the process.
  void install_sigint_handler() const;
  // Gives SIGINT its default action back (if this interrupter had it).
  void remove_sigint_handler() const;

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

}  // namespace ember::train
