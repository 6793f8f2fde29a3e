#include "train/logger.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <sstream>

#include "ir/error.h"

namespace ember::train {

std::string FileMetricLogger::file_name(const std::string& metric) {
  std::string out = metric;
  for (char& c : out) {
    if (c == '/' || static_cast<unsigned char>(c) < 0x20) c = '_';
  }
  return out;
}

namespace {

std::string format_value(double value) {
  std::ostringstream out;
  out << std::setprecision(std::numeric_limits<double>::max_digits10) << value;
  return out.str();
}

// `text` written to `path` through a temporary file renamed over it.
void write_atomically(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw Error("FileMetricLogger: cannot write " + tmp.string());
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw Error("FileMetricLogger: cannot rename " + tmp.string() + ": " + ec.message());
}

// The lines of `path` whose leading number (an iteration) is at most `last`.
std::string lines_up_to(const std::filesystem::path& path, int64_t last) {
  std::ifstream in(path);
  std::string line, kept;
  while (std::getline(in, line)) {
    try {
      if (std::stoll(line) <= last) kept += line + "\n";
    } catch (const std::exception&) {
      // not a read: dropped
    }
  }
  return kept;
}

}  // namespace

void FileMetricLogger::resume_after(int64_t epoch, int64_t iteration) {
  resume_epoch_ = epoch;
  resume_iteration_ = iteration;
}

// A read file of `epoch`, opened for appending; the first time, what an earlier run wrote
// after the resume point is dropped (a fresh run keeps nothing of an old one's epoch files).
std::ofstream& FileMetricLogger::open(const std::string& path, int64_t epoch) {
  auto it = files_.find(path);
  if (it != files_.end()) return it->second;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const bool keep_some = resume_epoch_ > 0 && epoch <= resume_epoch_;
  const int64_t last =
      epoch < resume_epoch_ || resume_iteration_ == 0 ? INT64_MAX : resume_iteration_;
  if (keep_some) {
    write_atomically(path, lines_up_to(path, last));
  } else {
    std::filesystem::remove(path, ec);
  }
  std::ofstream out(path, std::ios::app);
  if (!out) throw Error("FileMetricLogger: cannot open " + path);
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  return files_.emplace(path, std::move(out)).first->second;
}

void FileMetricLogger::log(Split split, int64_t epoch, int64_t iteration, double,
                           const std::string& metric, double value) {
  const std::string path = dir_ + "/" + split_name(split) + "/epoch-" + std::to_string(epoch) +
                           "/" + file_name(metric) + ".log";
  auto& out = open(path, epoch);
  out << iteration << "," << value << "\n";
  out.flush();
}

// The rows of a split's epochs.csv: on first use, those an earlier run wrote for epochs up to
// the resume point (an epoch stopped inside has no value yet).
FileMetricLogger::EpochRows& FileMetricLogger::epoch_rows(Split split) {
  auto [it, fresh] = epochs_.try_emplace(static_cast<int>(split));
  if (!fresh || resume_epoch_ == 0) return it->second;
  const int64_t last_complete = resume_iteration_ > 0 ? resume_epoch_ - 1 : resume_epoch_;
  std::ifstream in(dir_ + "/" + split_name(split) + "/epochs.csv");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(','), second = line.find(',', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    int64_t epoch = 0;
    try {
      epoch = std::stoll(line.substr(0, first));
    } catch (const std::exception&) {
      continue;
    }
    if (epoch <= last_complete)
      it->second[{epoch, line.substr(first + 1, second - first - 1)}] = line.substr(second + 1);
  }
  return it->second;
}

void FileMetricLogger::log_epoch(Split split, int64_t epoch, const std::string& metric,
                                 double value) {
  EpochRows& rows = epoch_rows(split);
  rows[{epoch, metric}] = format_value(value);
  std::string text;
  for (const auto& [key, v] : rows) {
    text += std::to_string(key.first) + "," + key.second + "," + v + "\n";
  }
  write_atomically(dir_ + "/" + split_name(split) + "/epochs.csv", text);
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
