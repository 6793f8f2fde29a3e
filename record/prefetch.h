#pragma once
// Host copies of a load's entries that need converting, made on a worker thread one tensor ahead
// of the caller, so converting tensor i+1 out of the file overlaps with uploading tensor i.
// Entries already in their dtype are uploaded from the record's bytes (direct) and never copied.
#include <future>
#include <optional>
#include <vector>

#include "record/record.h"

namespace ember::record {

class Prefetcher {
 public:
  // entries[i] (when present) is to become dtypes[i].
  Prefetcher(const std::vector<std::optional<Entry>>& entries, std::vector<DType> dtypes);
  // Entry i's host data; call with increasing i, only for present entries. Rethrows what the
  // copy threw (a failed conversion).
  TensorData take(size_t i);
  // Whether entry i is already in its dtype (upload its bytes; take() is not needed).
  bool direct(size_t i) const { return entries_[i] && entries_[i]->dtype() == dtypes_[i]; }

 private:
  void start(size_t i);
  const std::vector<std::optional<Entry>>& entries_;
  std::vector<DType> dtypes_;
  std::vector<std::future<TensorData>> pending_;
};

}  // namespace ember::record
