// One run's launches from CUPTI's records (profiles/launch_timeline.h): the last of the traced runs, in
// order of start, on the GPU's clock from that run's first start, streams numbered in order of first use.
#include "profiles/launch_timeline.h"

#include <gtest/gtest.h>

namespace flabench {
namespace {

TEST(LaunchTimeline, TheLastRunInOrderOfStartWithItsStreamsNumbered) {
  // two runs of three launches, as CUPTI hands them over: in completion order, streams by CUPTI's ids
  const std::vector<TracedLaunch> records = {{"fwd", 1000, 2000, 7},  {"rows", 2100, 4000, 9},
                                             {"cols", 2000, 3000, 7}, {"fwd", 5000, 6000, 7},
                                             {"cols", 6000, 7500, 7}, {"rows", 6050, 8000, 9}};
  const std::vector<LaunchSpan> spans = last_run_timeline(records, 2);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].kernel, "fwd");
  EXPECT_EQ(spans[0].stream, 0);
  EXPECT_DOUBLE_EQ(spans[0].start_ms, 0);
  EXPECT_DOUBLE_EQ(spans[0].end_ms, 1e-3);
  EXPECT_EQ(spans[1].kernel, "cols");
  EXPECT_EQ(spans[1].stream, 0);
  EXPECT_EQ(spans[2].kernel, "rows");
  EXPECT_EQ(spans[2].stream, 1) << "the run's second stream";
  EXPECT_DOUBLE_EQ(spans[2].start_ms, 1.05e-3);
  EXPECT_DOUBLE_EQ(spans[2].end_ms, 3e-3);
}

TEST(LaunchTimeline, TheFirstRunsKernelsInLaunchOrderNotCompletionOrder) {
  // two runs over two streams: "rows" launched second on its own stream, completed last
  const std::vector<TracedLaunch> records = {{"fwd", 1000, 2000, 7, 10},  {"cols", 2000, 3000, 7, 12},
                                             {"rows", 2100, 4000, 9, 11}, {"fwd", 5000, 6000, 7, 20},
                                             {"cols", 6000, 7500, 7, 22}, {"rows", 6050, 8000, 9, 21}};
  EXPECT_EQ(first_run_launches(records, 2), (std::vector<std::string>{"fwd", "rows", "cols"}));
  EXPECT_EQ(first_run_launches(records, 1).size(), 6u);
  EXPECT_TRUE(first_run_launches(records, 4).empty());
  EXPECT_TRUE(first_run_launches({}, 1).empty());
}

TEST(LaunchTimeline, RecordsThatDoNotSplitIntoEqualRunsGiveNone) {
  EXPECT_TRUE(last_run_timeline({{"a", 0, 1, 0}, {"b", 1, 2, 0}, {"a", 3, 4, 0}}, 2).empty());
  EXPECT_TRUE(last_run_timeline({}, 1).empty());
  EXPECT_TRUE(last_run_timeline({{"a", 0, 1, 0}}, 0).empty());
  EXPECT_EQ(last_run_timeline({{"a", 0, 1, 0}}, 1).size(), 1u);
}

}  // namespace
}  // namespace flabench
