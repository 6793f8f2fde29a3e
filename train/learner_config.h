#pragma once
// The Learner's settings that are plain values (the builder fills them).
#include <cstdint>
#include <optional>
#include <string>

#include "train/checkpoint.h"

namespace ember::train {

struct LearnerConfig {
  std::string artifact_dir;
  int64_t num_epochs = 1;
  int64_t grad_accumulation = 1;  // training steps per optimizer step
  int64_t log_interval = 25;      // steps between metric reads (each read syncs once per metric)
  bool summary = false;           // print the summary table at the end
  bool file_logs = true;          // <artifact>/train/epoch-N/<Metric>.log
  bool tensorboard = true;        // <artifact>/tensorboard/{train,valid}/events.out.tfevents.*
  bool report = true;             // <artifact>/report/report.html
  std::optional<int64_t> resume_epoch;  // continue from this epoch's checkpoint
  CheckpointPolicy checkpointing;
};

}  // namespace ember::train
