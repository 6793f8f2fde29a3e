#include "record/prefetch.h"

namespace ember::record {

Prefetcher::Prefetcher(const std::vector<std::optional<Entry>>& entries, std::vector<DType> dtypes)
    : entries_(entries), dtypes_(std::move(dtypes)), pending_(entries.size()) {
  if (dtypes_.size() != entries_.size()) throw Error("record: Prefetcher: one dtype per entry");
}

void Prefetcher::start(size_t i) {
  if (i >= entries_.size() || !entries_[i] || pending_[i].valid() || direct(i)) return;
  const Entry* e = &*entries_[i];
  const DType dtype = dtypes_[i];
  pending_[i] = std::async(std::launch::async, [e, dtype] { return e->to_data(dtype); });
}

TensorData Prefetcher::take(size_t i) {
  if (i >= entries_.size() || !entries_[i]) throw Error("record: Prefetcher: no entry to take");
  if (direct(i)) return entries_[i]->to_data();
  start(i);
  // The next present entry starts while this one is handed over.
  for (size_t j = i + 1; j < entries_.size(); ++j) {
    if (entries_[j] && !direct(j)) {
      start(j);
      break;
    }
  }
  return pending_[i].get();
}

}  // namespace ember::record
