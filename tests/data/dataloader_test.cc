// The data loader: batches and their order against plain loops over the plan, the same batches
// for 0, 1, 2 and 4 workers, bounded prefetch, errors that reach the consumer once, and no
// worker thread left behind.
#include "data/dataloader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <thread>

#include "data/random.h"
#include "tests/data/test_util.h"

namespace ember::data {
namespace {

using Ints = std::vector<int>;

// Items 0..n-1; get(fail_at) throws, get(hole) has no item; each get may sleep a little so
// that workers finish out of order.
class Counting : public Dataset<int> {
 public:
  explicit Counting(size_t n, bool jitter = false) : n_(n), jitter_(jitter) {}
  std::optional<int> get(size_t i) const override {
    gets.fetch_add(1);
    if (i >= n_) return std::nullopt;
    if (jitter_) std::this_thread::sleep_for(std::chrono::microseconds((i * 37) % 200));
    if (i == fail_at) throw Error("counting dataset: item " + std::to_string(i) + " is broken");
    if (i == hole) return std::nullopt;
    return static_cast<int>(i);
  }
  size_t len() const override { return n_; }

  size_t fail_at = SIZE_MAX, hole = SIZE_MAX;
  mutable std::atomic<size_t> gets{0};

 private:
  size_t n_;
  bool jitter_;
};

class Collect : public Batcher<int, Ints> {
 public:
  Ints batch(std::vector<int> items, const Device&) const override { return items; }
};

std::shared_ptr<DataLoader<Ints>> loader(std::shared_ptr<Dataset<int>> d, size_t batch,
                                         std::optional<uint64_t> seed, size_t workers,
                                         size_t prefetch = 0) {
  DataLoaderBuilder<int, Ints> b(std::make_shared<Collect>());
  b.batch_size(batch).num_workers(workers).prefetch(prefetch);
  if (seed) b.shuffle(*seed);
  return b.build(std::move(d), Device::cpu());
}

std::vector<Ints> epoch(DataLoader<Ints>& l) {
  std::vector<Ints> out;
  auto it = l.iter();
  while (auto b = it->next()) out.push_back(*b);
  return out;
}

size_t threads_now() {
  size_t n = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST(SplitMix64, MatchesTheReferenceSequence) {
  // The first outputs of Vigna's splitmix64.c for seed 1234567.
  SplitMix64 rng(1234567);
  EXPECT_EQ(rng.next(), 6457827717110365317ULL);
  EXPECT_EQ(rng.next(), 3203168211198807973ULL);
  EXPECT_EQ(rng.next(), 9817491932198370423ULL);
  EXPECT_EQ(rng.next(), 4593380528125082431ULL);
  EXPECT_EQ(rng.next(), 16408922859458223821ULL);
}

TEST(SplitMix64, BelowIsUniform) {
  SplitMix64 rng(7);
  constexpr int kBins = 6, kDraws = 60000;
  std::vector<int> count(kBins);
  for (int i = 0; i < kDraws; ++i) ++count[rng.below(kBins)];
  // Each bin: 10000 expected, deviation sqrt(60000 * 1/6 * 5/6) = 91; 5 deviations allowed.
  for (int c : count) EXPECT_NEAR(c, kDraws / kBins, 460);
}

TEST(DataLoader, UnshuffledBatchesFollowTheDataset) {
  auto l = loader(std::make_shared<Counting>(10), 3, std::nullopt, 0);
  EXPECT_EQ(l->num_batches(), 4u);
  EXPECT_EQ(l->num_items(), 10u);
  std::vector<Ints> expected = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}};
  EXPECT_EQ(epoch(*l), expected);
  EXPECT_EQ(epoch(*l), expected);  // no seed: every epoch alike
}

TEST(DataLoader, ShuffledEpochsArePermutationsThatDiffer) {
  auto l = loader(std::make_shared<Counting>(50), 8, 42, 0);
  std::vector<Ints> first = epoch(*l), second = epoch(*l);
  for (const auto& e : {first, second}) {
    ASSERT_EQ(e.size(), 7u);
    EXPECT_EQ(e.back().size(), 2u);
    std::multiset<int> seen;
    for (const auto& b : e) seen.insert(b.begin(), b.end());
    std::multiset<int> all;
    for (int i = 0; i < 50; ++i) all.insert(i);
    EXPECT_EQ(seen, all);
  }
  EXPECT_NE(first, second);
  // A new loader with the seed starts again from epoch 0; another seed gives another order.
  EXPECT_EQ(epoch(*loader(std::make_shared<Counting>(50), 8, 42, 0)), first);
  EXPECT_NE(epoch(*loader(std::make_shared<Counting>(50), 8, 43, 0)), first);
}

TEST(DataLoader, ShuffleIsFisherYatesOverTheSeedAndEpoch) {
  // Plain Fisher-Yates with the generator seeded from (seed, epoch).
  auto l = loader(std::make_shared<Counting>(20), 20, 9, 0);
  l->set_epoch(3);
  SplitMix64 rng(9, 3);
  Ints expected(20);
  for (int i = 0; i < 20; ++i) expected[i] = i;
  for (size_t i = 20; i > 1; --i) std::swap(expected[i - 1], expected[rng.below(i)]);
  EXPECT_EQ(epoch(*l), std::vector<Ints>{expected});
}

TEST(DataLoader, SameBatchesWhateverTheWorkers) {
  auto reference = loader(std::make_shared<Counting>(203, true), 16, 5, 0);
  std::vector<Ints> e0 = epoch(*reference), e1 = epoch(*reference);
  for (size_t workers : {1, 2, 4}) {
    for (size_t prefetch : {0, 1, 7}) {
      auto l = loader(std::make_shared<Counting>(203, true), 16, 5, workers, prefetch);
      EXPECT_EQ(epoch(*l), e0) << workers << " workers, prefetch " << prefetch;
      EXPECT_EQ(epoch(*l), e1) << workers << " workers, prefetch " << prefetch;
    }
  }
}

TEST(DataLoader, SetEpochReproducesThatEpoch) {
  auto run = loader(std::make_shared<Counting>(30), 4, 11, 2);
  std::vector<Ints> third;
  for (int e = 0; e < 3; ++e) third = epoch(*run);
  EXPECT_EQ(run->epoch(), 3u);
  auto resumed = loader(std::make_shared<Counting>(30), 4, 11, 2);
  resumed->set_epoch(2);
  EXPECT_EQ(epoch(*resumed), third);
}

TEST(DataLoader, ProgressCountsItemsReturned) {
  auto l = loader(std::make_shared<Counting>(10), 4, 1, 2);
  auto it = l->iter();
  EXPECT_EQ(it->progress().items_processed, 0u);
  EXPECT_EQ(it->progress().items_total, 10u);
  std::vector<size_t> seen;
  while (it->next()) seen.push_back(it->progress().items_processed);
  EXPECT_EQ(seen, (std::vector<size_t>{4, 8, 10}));
}

TEST(DataLoader, PrefetchIsBounded) {
  auto d = std::make_shared<Counting>(100);
  auto l = loader(d, 1, std::nullopt, 2, 3);
  auto it = l->iter();
  ASSERT_TRUE(it->next());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Batch 0 taken: batches 1..3 may be built (a window of 3), no more.
  EXPECT_EQ(d->gets.load(), 4u);
}

TEST(DataLoader, WorkerErrorSurfacesOnceThenTheEpochEnds) {
  for (size_t workers : {0, 1, 2, 4}) {
    auto d = std::make_shared<Counting>(40);
    d->fail_at = 13;
    auto l = loader(d, 4, std::nullopt, workers);
    auto it = l->iter();
    for (int b = 0; b < 3; ++b) ASSERT_TRUE(it->next()) << workers;  // items 0..11
    testing::expect_error([&] { it->next(); }, {"item 13", "broken"});
    EXPECT_FALSE(it->next()) << workers;
    EXPECT_FALSE(it->next()) << workers;
    // The next epoch tries again (and fails again at the same batch).
    auto again = l->iter();
    for (int b = 0; b < 3; ++b) ASSERT_TRUE(again->next());
    EXPECT_THROW(again->next(), Error);
  }
}

TEST(DataLoader, NonEmberExceptionsKeepTheirType) {
  class Throws : public Batcher<int, Ints> {
   public:
    Ints batch(std::vector<int> items, const Device&) const override {
      if (items[0] == 4) throw std::out_of_range("batcher says no");
      return items;
    }
  };
  auto l = DataLoaderBuilder<int, Ints>(std::make_shared<Throws>())
               .batch_size(2)
               .num_workers(2)
               .build(std::make_shared<Counting>(10), Device::cpu());
  auto it = l->iter();
  ASSERT_TRUE(it->next());
  ASSERT_TRUE(it->next());
  EXPECT_THROW(it->next(), std::out_of_range);
}

TEST(DataLoader, MissingItemInsideLenIsAnError) {
  auto d = std::make_shared<Counting>(10);
  d->hole = 6;
  auto l = loader(d, 5, std::nullopt, 2);
  auto it = l->iter();
  ASSERT_TRUE(it->next());
  testing::expect_error([&] { it->next(); }, {"no item 6", "len is 10"});
}

TEST(DataLoader, NoThreadOutlivesItsIterator) {
  const size_t before = threads_now();
  {
    auto d = std::make_shared<Counting>(1000, true);
    auto l = loader(d, 8, 3, 4);
    auto it = l->iter();
    ASSERT_TRUE(it->next());
    EXPECT_EQ(threads_now(), before + 4);
    // Dropped mid-epoch, with workers busy and batches waiting.
  }
  EXPECT_EQ(threads_now(), before);
  {
    auto d = std::make_shared<Counting>(1000, true);
    d->fail_at = 9;
    auto l = loader(d, 8, std::nullopt, 4);
    auto it = l->iter();
    ASSERT_TRUE(it->next());
    EXPECT_THROW(it->next(), Error);
    l.reset();  // the iterator keeps what it needs
    EXPECT_FALSE(it->next());
  }
  EXPECT_EQ(threads_now(), before);
}

TEST(DataLoader, DroppingTheLoaderStopsItsWorkersButNotTheEpoch) {
  const size_t before = threads_now();
  std::vector<Ints> expected = epoch(*loader(std::make_shared<Counting>(100, true), 8, 6, 0));
  auto l = loader(std::make_shared<Counting>(100, true), 8, 6, 3);
  auto it = l->iter();
  std::vector<Ints> got = {*it->next(), *it->next()};
  EXPECT_EQ(threads_now(), before + 3);
  l.reset();
  EXPECT_EQ(threads_now(), before);
  while (auto b = it->next()) got.push_back(*b);  // the rest built here, in the same order
  EXPECT_EQ(got, expected);
}

TEST(DataLoader, SplitDealsBatchesAcrossDevices) {
  auto l = loader(std::make_shared<Counting>(45), 4, 8, 2);
  std::vector<Ints> whole = epoch(*l);  // epoch 0, 12 batches
  l->set_epoch(0);
  auto parts = l->split({Device::cpu(), Device::cpu(), Device::cpu()});
  ASSERT_EQ(parts.size(), 3u);
  size_t items = 0;
  for (size_t p = 0; p < 3; ++p) {
    std::vector<Ints> got = epoch(*parts[p]);
    EXPECT_EQ(parts[p]->num_batches(), 4u);
    EXPECT_EQ(got.size(), 4u);
    for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], whole[p + 3 * k]) << p << " " << k;
    items += parts[p]->num_items();
  }
  EXPECT_EQ(items, 45u);
  EXPECT_EQ(parts[2]->num_items(), 13u);  // the short last batch (1 item) is the 12th
  EXPECT_THROW(l->split({}), Error);
}

TEST(DataLoader, BuilderChecks) {
  DataLoaderBuilder<int, Ints> b(std::make_shared<Collect>());
  testing::expect_error([&] { b.batch_size(0).build(std::make_shared<Counting>(3)); },
                        {"batch_size"});
  testing::expect_error([&] { b.batch_size(1).build(nullptr); }, {"no dataset"});
}

TEST(DataLoader, EmptyDatasetHasNoBatches) {
  auto l = loader(std::make_shared<Counting>(0), 4, 1, 2);
  EXPECT_EQ(l->num_batches(), 0u);
  EXPECT_TRUE(epoch(*l).empty());
}

TEST(Dataset, IteratesInIndexOrder) {
  Counting d(5);
  Ints seen;
  for (int v : d) seen.push_back(v);
  EXPECT_EQ(seen, (Ints{0, 1, 2, 3, 4}));
  EXPECT_EQ(d.at(3), 3);
  testing::expect_error([&] { d.at(5, "counting"); }, {"counting", "item 5", "5 items"});
}

}  // namespace
}  // namespace ember::data
