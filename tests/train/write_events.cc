// Writes the event files check_event_files.py reads with TensorBoard: write_events DIR puts
// train and valid runs under DIR through the Learner's event logger, with "Loss" = 1 / step at
// steps 1..5 (train), "Accuracy" = 10 * epoch at epochs 1..3 (valid, as epoch/Accuracy).
#include <cstdio>

#include "train/logger.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_events DIR\n");
    return 2;
  }
  using namespace ember::train;
  EventMetricLogger logger(argv[1]);
  for (int step = 1; step <= 5; ++step) logger.log(Split::Train, 1, step, step, "Loss", 1.0 / step);
  for (int epoch = 1; epoch <= 3; ++epoch)
    logger.log_epoch(Split::Valid, epoch, "Accuracy", 10.0 * epoch);
  return 0;
}
