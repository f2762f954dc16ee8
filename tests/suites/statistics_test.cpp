#include "suites/statistics.h"

#include <gtest/gtest.h>

#include "suites/timing.h"

namespace flabench {
namespace {

TEST(Statistics, MedianQuartilesAndSpread) {
  const TimingRecord t = summarize_samples({5, 1, 4, 2, 3});
  EXPECT_EQ(t.samples, 5);
  EXPECT_DOUBLE_EQ(t.median_ms, 3);
  EXPECT_DOUBLE_EQ(t.q1_ms, 2);
  EXPECT_DOUBLE_EQ(t.q3_ms, 4);
  EXPECT_DOUBLE_EQ(t.min_ms, 1);
  EXPECT_DOUBLE_EQ(t.max_ms, 5);
  EXPECT_DOUBLE_EQ(t.mean_ms, 3);
  EXPECT_NEAR(t.stddev_ms, 1.5811388, 1e-6);
  EXPECT_EQ(t.samples_ms, (std::vector<double>{5, 1, 4, 2, 3}));  // in measured order
  EXPECT_DOUBLE_EQ(summarize_samples({1, 2, 3, 4}).median_ms, 2.5);
  EXPECT_EQ(summarize_samples({}).samples, 0);
}

TEST(Statistics, IssueTimeIsTheMedianOfTheHostTimes) {
  EXPECT_DOUBLE_EQ(summarize_samples({5, 1, 4}, {0.3, 0.1, 0.2}).issue_ms, 0.2);
  EXPECT_DOUBLE_EQ(summarize_samples({5, 1, 4, 2}, {0.4, 0.1, 0.2, 0.3}).issue_ms, 0.25);
  EXPECT_DOUBLE_EQ(summarize_samples({5, 1, 4}).issue_ms, 0);  // none measured
}

TEST(Timing, SampleCountMeetsTimeAndCountFloors) {
  TimingSettings settings;
  settings.min_time_s = 0.5;
  settings.min_samples = 10;
  settings.max_samples = 1000;
  EXPECT_EQ(sample_count(0.01, settings), 1000);  // 50000 wanted, capped
  EXPECT_EQ(sample_count(1.0, settings), 500);
  EXPECT_EQ(sample_count(200.0, settings), 10);  // slow cases still get the minimum
}

}  // namespace
}  // namespace flabench
