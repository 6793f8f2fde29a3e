// The dataset transforms against plain loops: mapper, partial (chunks and train/valid split
// sizes and disjointness), shuffled (a seeded permutation), sampler (with and without
// replacement: sizes, coverage and draw statistics), windows, composed and selection.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "data/in_memory.h"
#include "data/transform/composed.h"
#include "data/transform/mapper.h"
#include "data/transform/partial.h"
#include "data/transform/sampler.h"
#include "data/transform/selection.h"
#include "data/transform/shuffled.h"
#include "data/transform/windows.h"
#include "tests/data/test_util.h"

namespace ember::data {
namespace {

// Items 0..n-1 (so an item is its source index).
std::shared_ptr<InMemDataset<int>> range(int n, int from = 0) {
  std::vector<int> items(n);
  for (int i = 0; i < n; ++i) items[i] = from + i;
  return std::make_shared<InMemDataset<int>>(items);
}

std::vector<int> all(const Dataset<int>& d) { return {d.begin(), d.end()}; }

TEST(MapperDataset, MapsEachItemWhenRead) {
  MapperDataset<int, std::string> d(range(4), [](const int& i) { return std::string(i, 'x'); });
  ASSERT_EQ(d.len(), 4u);
  EXPECT_EQ(*d.get(3), "xxx");
  EXPECT_EQ(*d.get(0), "");
  EXPECT_FALSE(d.get(4));
}

TEST(PartialDataset, RangeAndBounds) {
  PartialDataset<int> d(range(10), 3, 7);
  EXPECT_EQ(all(d), (std::vector<int>{3, 4, 5, 6}));
  EXPECT_FALSE(d.get(4));
  testing::expect_error([] { PartialDataset<int>(range(10), 4, 11); }, {"[4, 11)", "10 items"});
  testing::expect_error([] { PartialDataset<int>(range(10), 5, 4); }, {"[5, 4)"});
}

TEST(PartialDataset, ChunksCoverTheDatasetOnce) {
  auto parts = PartialDataset<int>::split(range(23), 5);
  ASSERT_EQ(parts.size(), 5u);
  std::vector<size_t> sizes;
  std::vector<int> joined;
  for (const auto& p : parts) {
    sizes.push_back(p->len());
    for (int v : *p) joined.push_back(v);
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{5, 5, 5, 4, 4}));
  EXPECT_EQ(joined, all(*range(23)));
  EXPECT_THROW(PartialDataset<int>::split(range(3), 0), Error);
}

TEST(PartialDataset, TrainValidSplitSizesAndDisjointness) {
  auto shuffled = std::make_shared<ShuffledDataset<int>>(range(1000), 7);
  auto [train, valid] = PartialDataset<int>::train_valid_split(shuffled, 0.2);
  EXPECT_EQ(train->len(), 800u);
  EXPECT_EQ(valid->len(), 200u);
  std::set<int> t(train->begin(), train->end()), v(valid->begin(), valid->end());
  EXPECT_EQ(t.size(), 800u);
  EXPECT_EQ(v.size(), 200u);
  for (int x : v) EXPECT_EQ(t.count(x), 0u) << x;
  EXPECT_EQ(PartialDataset<int>::train_valid_split(range(7), 0.5).first->len(), 4u);  // 3.5 up
  EXPECT_THROW(PartialDataset<int>::train_valid_split(range(7), 1.5), Error);
}

TEST(ShuffledDataset, SeededPermutation) {
  ShuffledDataset<int> a(range(100), 1), b(range(100), 1), c(range(100), 2);
  std::vector<int> items = all(a);
  EXPECT_EQ(items, all(b));
  EXPECT_NE(items, all(c));
  EXPECT_NE(items, all(*range(100)));
  std::vector<int> sorted = items;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, all(*range(100)));
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(items[i], static_cast<int>(a.source_index(i)));
  // Fisher-Yates over SplitMix64(seed), written out.
  SplitMix64 rng(1);
  std::vector<int> expected = all(*range(100));
  for (size_t i = 100; i > 1; --i) std::swap(expected[i - 1], expected[rng.below(i)]);
  EXPECT_EQ(items, expected);
}

TEST(SamplerDataset, WithoutReplacementCoversBeforeRepeating) {
  SamplerDataset<int> d(range(10), 25, false, 3);
  ASSERT_EQ(d.len(), 25u);
  std::vector<int> items = all(d);
  // Each run of 10 draws is a permutation; the last 5 are distinct.
  for (size_t start : {0, 10}) {
    std::set<int> run(items.begin() + start, items.begin() + start + 10);
    EXPECT_EQ(run.size(), 10u) << start;
  }
  EXPECT_EQ(std::set<int>(items.begin() + 20, items.end()).size(), 5u);
  SamplerDataset<int> small(range(10), 4, false, 3);
  EXPECT_EQ(std::set<int>(small.begin(), small.end()).size(), 4u);
}

TEST(SamplerDataset, WithReplacementIsUniform) {
  constexpr int kItems = 8, kDraws = 40000;
  SamplerDataset<int> d(range(kItems), kDraws, true, 11);
  std::map<int, int> count;
  for (int v : d) ++count[v];
  ASSERT_EQ(count.size(), static_cast<size_t>(kItems));
  // Chi-squared with 7 degrees of freedom: 24.3 is its 0.999 quantile.
  double chi2 = 0;
  const double expected = static_cast<double>(kDraws) / kItems;
  for (auto [v, c] : count) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 24.3);
  // Repeats happen: 16 draws from 8 items cannot all differ.
  SamplerDataset<int> repeats(range(kItems), 16, true, 11);
  EXPECT_LT(std::set<int>(repeats.begin(), repeats.end()).size(), 16u);
}

TEST(SamplerDataset, RatioSizesAndSeeds) {
  auto d = SamplerDataset<int>::with_ratio(range(40), 0.25, false, 5);
  EXPECT_EQ(d->len(), 10u);
  EXPECT_EQ(SamplerDataset<int>::with_ratio(range(40), 2.5, true, 5)->len(), 100u);
  EXPECT_EQ(all(*d), all(*SamplerDataset<int>::with_ratio(range(40), 0.25, false, 5)));
  EXPECT_NE(all(*d), all(*SamplerDataset<int>::with_ratio(range(40), 0.25, false, 6)));
  EXPECT_THROW(SamplerDataset<int>::with_ratio(range(4), -1, true, 0), Error);
  EXPECT_THROW(SamplerDataset<int>(range(0), 3, true, 0), Error);
}

TEST(WindowsDataset, OverlappingRuns) {
  WindowsDataset<int> d(range(5), 3);
  ASSERT_EQ(d.len(), 3u);
  EXPECT_EQ(*d.get(0), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(*d.get(2), (std::vector<int>{2, 3, 4}));
  EXPECT_FALSE(d.get(3));
  EXPECT_EQ(WindowsDataset<int>(range(2), 3).len(), 0u);
  EXPECT_THROW(WindowsDataset<int>(range(2), 0), Error);
}

TEST(ComposedDataset, ConcatenatesInOrder) {
  ComposedDataset<int> d({range(3), range(0), range(2, 100), range(1, 50)});
  EXPECT_EQ(d.len(), 6u);
  EXPECT_EQ(all(d), (std::vector<int>{0, 1, 2, 100, 101, 50}));
  EXPECT_FALSE(d.get(6));
  EXPECT_EQ(ComposedDataset<int>(std::vector<DatasetPtr<int>>{}).len(), 0u);
}

TEST(SelectionDataset, PicksAndShuffles) {
  SelectionDataset<int> d(range(10), {7, 2, 2, 9});
  EXPECT_EQ(all(d), (std::vector<int>{7, 2, 2, 9}));
  testing::expect_error(
      [] {
        SelectionDataset<int>(range(10), {1, 10});
      },
      {"index 10", "position 1", "10 items"});
  auto every = SelectionDataset<int>::all(range(30));
  every->shuffle(4);
  std::vector<int> items = all(*every);
  EXPECT_EQ(items, all(ShuffledDataset<int>(range(30), 4)));  // the same permutation
}

}  // namespace
}  // namespace ember::data
