#include "train/logger.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>

#include "ir/error.h"

namespace ember::train {

std::string FileMetricLogger::file_name(const std::string& metric) {
  std::string out = metric;
  for (char& c : out) {
    if (c == '/' || static_cast<unsigned char>(c) < 0x20) c = '_';
  }
  return out;
}

std::ofstream& FileMetricLogger::open(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return it->second;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::app);
  if (!out) throw Error("FileMetricLogger: cannot open " + path);
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  return files_.emplace(path, std::move(out)).first->second;
}

void FileMetricLogger::log(Split split, int64_t epoch, int64_t iteration, double,
                           const std::string& metric, double value) {
  const std::string path = dir_ + "/" + split_name(split) + "/epoch-" + std::to_string(epoch) +
                           "/" + file_name(metric) + ".log";
  auto& out = open(path);
  out << iteration << "," << value << "\n";
  out.flush();
}

void FileMetricLogger::log_epoch(Split split, int64_t epoch, const std::string& metric,
                                 double value) {
  auto& out = open(dir_ + "/" + split_name(split) + "/epochs.csv");
  out << epoch << "," << metric << "," << value << "\n";
  out.flush();
}

EventMetricLogger::EventMetricLogger(const std::string& dir) {
  writers_[0] = std::make_unique<EventFileWriter>(dir + "/train");
  writers_[1] = std::make_unique<EventFileWriter>(dir + "/valid");
}

void EventMetricLogger::log(Split split, int64_t, int64_t, double x, const std::string& metric,
                            double value) {
  if (std::isnan(value)) return;
  writers_[static_cast<int>(split)]->add_scalar(metric, value, std::llround(x));
}

void EventMetricLogger::log_epoch(Split split, int64_t epoch, const std::string& metric,
                                  double value) {
  if (std::isnan(value)) return;
  writers_[static_cast<int>(split)]->add_scalar("epoch/" + metric, value, epoch);
}

}  // namespace ember::train
