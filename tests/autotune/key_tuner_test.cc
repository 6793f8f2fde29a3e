// Tuning keys (anchoring, alignment), modes, and the tuner's candidate handling.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <stdexcept>

#include "autotune/key.h"
#include "autotune/mode.h"
#include "autotune/tuner.h"

namespace ember::autotune {
namespace {

TEST(TuneKey, AnchorsSizesToPowersOfTwo) {
  EXPECT_EQ(anchor(1), 1);
  EXPECT_EQ(anchor(3), 4);
  EXPECT_EQ(anchor(4096), 4096);
  EXPECT_EQ(anchor(4097), 8192);
  TuneKey a{"matmul", "dev", {3008, 4096, 64, 1}, {"f32"}};
  TuneKey b{"matmul", "dev", {2400, 4096, 64, 1}, {"f32"}};
  EXPECT_EQ(a.to_string(), b.to_string()) << "one tuning covers sizes anchored together";
}

TEST(TuneKey, AWinnerIsNeverUsedOutsideItsAlignment) {
  TuneKey aligned{"matmul", "dev", {4096, 4096, 4096, 1}, {"f32"}};
  TuneKey odd{"matmul", "dev", {4095, 4096, 4096, 1}, {"f32"}};
  EXPECT_EQ(anchor(4095), anchor(4096));
  EXPECT_NE(aligned.to_string(), odd.to_string());
  EXPECT_EQ(alignment(4096), 16);
  EXPECT_EQ(alignment(4095), 1);
  EXPECT_EQ(alignment(36), 4);
}

TEST(TuneKey, DeviceDtypeAndFamilyAreParts) {
  TuneKey a{"matmul", "dev A", {64, 64, 64, 1}, {"f32"}};
  TuneKey b = a, c = a, d = a;
  b.device = "dev B";
  c.flags = {"bf16"};
  d.family = "row";
  EXPECT_NE(a.to_string(), b.to_string());
  EXPECT_NE(a.to_string(), c.to_string());
  EXPECT_NE(a.to_string(), d.to_string());
  EXPECT_NE(a.to_string().find(kEmberVersion), std::string::npos);
}

TEST(Mode, DefaultsAndOverrides) {
  unsetenv("EMBER_AUTOTUNE");
  EXPECT_EQ(mode(true), Mode::on);
  EXPECT_EQ(mode(false), Mode::cached);
  setenv("EMBER_AUTOTUNE", "off", 1);
  EXPECT_EQ(mode(true), Mode::off);
  setenv("EMBER_AUTOTUNE", "cached", 1);
  EXPECT_EQ(mode(true), Mode::cached);
  setenv("EMBER_AUTOTUNE", "on", 1);
  EXPECT_EQ(mode(false), Mode::on);
  unsetenv("EMBER_AUTOTUNE");
}

TEST(Tuner, PicksTheFastestAndRecordsEveryCandidate) {
  std::map<std::string, double> cost{{"a", 3.0}, {"b", 1.0}, {"c", 1.2}};
  std::map<std::string, int> runs;
  Entry e = tune("k", "fam", {"a", "b", "c"}, [&](const std::string& c) {
    ++runs[c];
    return cost[c];
  });
  EXPECT_EQ(e.winner, "b");
  EXPECT_DOUBLE_EQ(e.winner_ms, 1.0);
  ASSERT_EQ(e.candidates.size(), 3u);
  EXPECT_EQ(e.candidates[0].status, "eliminated") << "3x slower than the best";
  EXPECT_LT(runs["a"], runs["b"]) << "eliminated early, so sampled less";
  EXPECT_EQ(e.candidates[2].status, "ok");
}

TEST(Tuner, DiscardsCandidatesThatFailOrAreWrong) {
  Entry e = tune("k", "fam", {"throws", "wrong", "slow"}, [](const std::string& c) -> double {
    if (c == "throws") throw std::runtime_error("compile error");
    if (c == "wrong") return -1;
    return 5.0;
  });
  EXPECT_EQ(e.winner, "slow");
  EXPECT_NE(e.candidates[0].status.find("compile error"), std::string::npos);
  EXPECT_NE(e.candidates[1].status.find("wrong"), std::string::npos);
}

TEST(Tuner, NoWinnerWhenEveryCandidateFails) {
  Entry e = tune("k", "fam", {"x"}, [](const std::string&) { return -1.0; });
  EXPECT_TRUE(e.winner.empty());
}

TEST(Tuner, StopsAtItsBudget) {
  int runs = 0;
  TuneOptions o;
  o.budget_ms = 0;  // one round, then stop
  tune(
      "k", "fam", {"a", "b"}, [&](const std::string&) { return ++runs, 1.0; }, o);
  EXPECT_EQ(runs, 4) << "warm-up and one timed round per candidate";
}

}  // namespace
}  // namespace ember::autotune
