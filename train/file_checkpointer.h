#pragma once
// Checkpoints as files (Burn's FileCheckpointer), through the record layer:
//   <dir>/model-<N>.ember   the module (nn::save)
//   <dir>/optim-<N>.ember   the optimizer's state (optim::save)
//   <dir>/state-<N>.json    the training state, with the CRC32C of both files
// Each file is written to a temporary name and renamed; the state goes last, so a checkpoint
// without its state file was never complete. restore() checks the CRCs before loading anything:
// a damaged or truncated file is reported (ember::Error naming it), never loaded.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "nn/record.h"
#include "optim/record.h"
#include "train/checkpoint.h"
#include "train/event_file.h"

namespace ember::train {

namespace detail {
// The CRC32C of a whole file (ember::Error naming it when it cannot be read).
uint32_t file_crc32c(const std::string& path);
// Reads a text file whole (ember::Error naming it when it cannot be read).
std::string read_text(const std::string& path);
// Writes `text` to path.tmp and renames it to path.
void write_text_atomic(const std::string& path, const std::string& text);
}  // namespace detail

template <nn::Module M, class Rule>
class FileCheckpointer : public Checkpointer<M, optim::Optimizer<Rule>> {
 public:
  using Optim = optim::Optimizer<Rule>;
  explicit FileCheckpointer(std::string dir) : dir_(std::move(dir)) {}

  std::string model_path(int64_t epoch) const { return path("model", epoch, ".ember"); }
  std::string optim_path(int64_t epoch) const { return path("optim", epoch, ".ember"); }
  std::string state_path(int64_t epoch) const { return path("state", epoch, ".json"); }

  void save(int64_t epoch, const M& model, const Optim& optimizer,
            const TrainingState& state) override {
    std::filesystem::create_directories(dir_);
    nn::save(model, model_path(epoch));
    optim::save(optimizer, optim_path(epoch));
    auto j = nlohmann::json::parse(state.to_json());
    j["model_crc32c"] = detail::file_crc32c(model_path(epoch));
    j["optim_crc32c"] = detail::file_crc32c(optim_path(epoch));
    detail::write_text_atomic(state_path(epoch), j.dump(2));
  }

  M restore(int64_t epoch, const M& model, Optim& optimizer, TrainingState& state) override {
    const std::string sp = state_path(epoch);
    const std::string text = detail::read_text(sp);
    TrainingState loaded = TrainingState::from_json(text, sp);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
      check_crc(model_path(epoch), j.at("model_crc32c").get<uint32_t>());
      check_crc(optim_path(epoch), j.at("optim_crc32c").get<uint32_t>());
    } catch (const nlohmann::json::exception& e) {
      throw Error("FileCheckpointer: " + sp + " has no valid CRCs: " + e.what());
    }
    M restored = nn::load(model, model_path(epoch));
    Optim copy = optimizer;
    optim::load(copy, optim_path(epoch));
    optimizer = std::move(copy);
    state = std::move(loaded);
    return restored;
  }

  void remove(int64_t epoch) override {
    std::error_code ec;
    for (const auto& p : {model_path(epoch), optim_path(epoch), state_path(epoch)}) {
      std::filesystem::remove(p, ec);
    }
  }

 private:
  std::string path(const char* what, int64_t epoch, const char* ext) const {
    return dir_ + "/" + what + "-" + std::to_string(epoch) + ext;
  }
  static void check_crc(const std::string& path, uint32_t want) {
    if (detail::file_crc32c(path) != want) {
      throw Error("FileCheckpointer: " + path +
                  " is corrupt (its CRC32C does not match the checkpoint's state); not loaded");
    }
  }

  std::string dir_;
};

}  // namespace ember::train
