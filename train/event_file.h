#pragma once
// TensorBoard event files of scalars: TFRecord framing (length, masked CRC32C of the length,
// the record, masked CRC32C of the record) around tensorflow.Event protobuf messages. The few
// fields a scalar event has (Event.wall_time, step, file_version, summary; Summary.value;
// Value.tag, simple_value) are encoded by hand here: it keeps libprotobuf and a protoc step out
// of the static library (whose users would have to find and link them too) for five fields of a
// wire format that does not change. tests/train/check_event_files.py checks the files with
// TensorBoard's own reader.
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace ember::train {

// CRC-32C (Castagnoli), and the masked form TFRecord stores.
uint32_t crc32c(const void* data, size_t size);
uint32_t masked_crc32c(const void* data, size_t size);

// Appends scalar events to dir/events.out.tfevents.<seconds>.<host>; the directory is created.
// Each event is flushed to the file when written, so TensorBoard sees a run as it goes.
class EventFileWriter {
 public:
  // Throws ember::Error when the file cannot be created.
  explicit EventFileWriter(const std::string& dir);
  void add_scalar(const std::string& tag, double value, int64_t step);
  const std::string& path() const { return path_; }

 private:
  void write_record(const std::string& record);

  std::string path_;
  std::ofstream out_;
};

// One scalar read back from an event file.
struct ScalarEvent {
  std::string tag;
  float value = 0;
  int64_t step = 0;
  double wall_time = 0;
};

// Reads an event file's records, checking both CRCs of each (ember::Error naming the file and
// the record's offset when one does not match or the file ends inside a record), and returns
// its scalar events; `records` gets the number of records (the file-version event included).
std::vector<ScalarEvent> read_scalar_events(const std::string& path, int64_t* records = nullptr);

}  // namespace ember::train
