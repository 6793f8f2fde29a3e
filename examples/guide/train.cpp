// The Burn Book guide as one program: trains the guide's CNN on Fashion-MNIST with the Learner
// (Adam, cross-entropy, accuracy and loss metrics, checkpoints), saves the model and its config,
// and tells where the dashboard, logs, event files, report and model are.
//
//   guide_train [--artifact-dir DIR] [--epochs N] [--batch B] [--lr X] [--final-lr X]
//               [--dropout P] [--workers K] [--limit IMAGES] [--resume EPOCH] [--data DIR]
//               [--min-accuracy PERCENT]
//
// The dashboard appears when stdout is a terminal (q or Ctrl-C stops with a checkpoint; resume
// with --resume EPOCH); otherwise progress is printed as lines. EMBER_DEVICE picks the device.
#include <cstdio>
#include <string>

#include "data/fashion_mnist.h"
#include "training.h"

using namespace ember;

namespace {

struct Options {
  std::string artifact_dir = "/tmp/guide";
  std::string data_dir = data::default_fashion_mnist_dir();
  int64_t limit = 0, resume = 0;
  double min_accuracy = 0;
};

guide::TrainingConfig parse(int argc, char** argv, Options& o) {
  guide::TrainingConfig c(guide::ModelConfig(10, 512), optim::AdamConfig());
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error("guide_train: " + arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--artifact-dir")
      o.artifact_dir = value();
    else if (arg == "--epochs")
      c.num_epochs = std::stoll(value());
    else if (arg == "--batch")
      c.batch_size = std::stoll(value());
    else if (arg == "--lr")
      c.learning_rate = std::stod(value());
    else if (arg == "--final-lr")
      c.final_learning_rate = std::stod(value());
    else if (arg == "--dropout")
      c.model.dropout = std::stod(value());
    else if (arg == "--workers")
      c.num_workers = std::stoll(value());
    else if (arg == "--limit")
      o.limit = std::stoll(value());
    else if (arg == "--resume")
      o.resume = std::stoll(value());
    else if (arg == "--data")
      o.data_dir = value();
    else if (arg == "--min-accuracy")
      o.min_accuracy = std::stod(value());
    else
      throw Error("guide_train: unknown argument " + arg +
                  " (known: --artifact-dir --epochs --batch --lr --final-lr --dropout --workers "
                  "--limit --resume --data --min-accuracy)");
  }
  return c;
}

void print_artifacts(const std::string& dir, const guide::TrainingRun& run) {
  std::printf("\nartifacts in %s:\n", dir.c_str());
  std::printf("  dashboard    on the terminal during training (plain lines when not a terminal)\n");
  std::printf("  logs         %s/train/epoch-N/{Accuracy,Loss}.log, %s/valid/..., epochs.csv\n",
              dir.c_str(), dir.c_str());
  std::printf("  tensorboard  %s/tensorboard (tensorboard --logdir %s/tensorboard)\n", dir.c_str(),
              dir.c_str());
  std::printf("  report       %s\n",
              run.report_path.empty() ? "(not written)" : run.report_path.c_str());
  std::printf("  checkpoints  %s/checkpoint (resume: --resume EPOCH)\n", dir.c_str());
  std::printf("  model        %s with %s/config.json\n", run.model_path.c_str(), dir.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o;
    guide::TrainingConfig config = parse(argc, argv, o);
    Device device = Device::default_device();
    std::printf("device: %s\nconfig: %s\n", device.to_string().c_str(),
                config.to_json().dump().c_str());
    guide::TrainingRun run =
        guide::train(o.artifact_dir, config, device, o.data_dir, o.resume, o.limit);
    if (run.main_rank) print_artifacts(o.artifact_dir, run);
    if (run.valid_accuracy < o.min_accuracy) {
      std::fprintf(stderr, "error: validation accuracy %.2f%% is below --min-accuracy %.2f%%\n",
                   run.valid_accuracy, o.min_accuracy);
      return 1;
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
