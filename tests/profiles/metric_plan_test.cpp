// The metric sets, validated offline with the CUPTI Profiler Host API for the chips users run on: GH100
// (H100), GA100 (A100) and AD104 (RTX 4070 Ti). No GPU is needed; without CUPTI the tests skip and say why.
#include "profiles/metric_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "profiles/counter_session.h"
#include "profiles/kernel_tracer.h"

namespace flabench {
namespace {

// Declares `cupti`, or skips the test saying why CUPTI cannot be loaded.
#define REQUIRE_CUPTI(cupti)                          \
  std::string why;                                    \
  const CuptiLibrary* cupti = CuptiLibrary::get(why); \
  if (!cupti) GTEST_SKIP() << "CUPTI is not available: " << why

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(MetricPlan, TheChipsUsersRunOnAreKnown) {
  REQUIRE_CUPTI(cupti);
  const std::vector<std::string> chips = supported_chips(*cupti);
  for (const char* chip : {"GH100", "GA100", "AD104"}) EXPECT_TRUE(contains(chips, chip)) << chip;
}

struct Expected {
  const char* chip;
  std::size_t default_metrics;
  std::size_t deep_metrics;
  int default_passes_at_most;
  int deep_passes_at_most;
};

TEST(MetricPlan, EverySetIsValidOnEachChipWithItsPassCount) {
  REQUIRE_CUPTI(cupti);
  // Passes measured with CUPTI 13.0: GH100 9 / 10, GA100 5 / 10, AD104 7 / 10 (default / deep).
  for (const Expected& e : {Expected{"GH100", 13, 20, 9, 10}, Expected{"GA100", 12, 19, 5, 10},
                            Expected{"AD104", 12, 19, 7, 10}}) {
    for (const char* set : {"default", "deep"}) {
      CounterHost host(*cupti, e.chip);
      const MetricPlan plan = plan_metrics(host, e.chip, metric_requests(set));
      const bool deep = std::string(set) == "deep";
      EXPECT_EQ(plan.metrics.size(), deep ? e.deep_metrics : e.default_metrics) << e.chip << " " << set;
      EXPECT_GE(plan.passes, 1) << e.chip;
      EXPECT_LE(plan.passes, deep ? e.deep_passes_at_most : e.default_passes_at_most) << e.chip << " " << set;
      EXPECT_EQ(plan.metrics.front(), kDurationMetric);
      EXPECT_FALSE(plan.config_image.empty());
      EXPECT_TRUE(contains(plan.metrics, "dram__bytes_read.sum")) << e.chip;
      EXPECT_TRUE(contains(plan.metrics, "lts__t_sector_hit_rate.pct")) << e.chip;
      EXPECT_TRUE(contains(plan.metrics, "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum")) << e.chip;
      // warp-group MMA exists on Hopper only; elsewhere it is dropped with the reason
      const bool hopper = std::string(e.chip) == "GH100";
      EXPECT_EQ(contains(plan.metrics, "sm__inst_executed_pipe_tensor_op_gmma.sum"), hopper) << e.chip;
      EXPECT_EQ(plan.dropped.size(), hopper ? 0u : 1u) << e.chip;
      if (!hopper) {
        EXPECT_NE(plan.dropped[0].find("not a metric of " + std::string(e.chip)), std::string::npos);
      }
    }
  }
}

TEST(MetricPlan, AListKeepsValidNamesAndDropsOthersWithTheReason) {
  REQUIRE_CUPTI(cupti);
  CounterHost host(*cupti, "GH100");
  const MetricPlan plan =
      plan_metrics(host, "GH100", metric_requests("dram__bytes_read.sum,sm__no_such_counter.sum"));
  EXPECT_EQ(plan.metrics, (std::vector<std::string>{kDurationMetric, "dram__bytes_read.sum"}));
  ASSERT_EQ(plan.dropped.size(), 1u);
  EXPECT_EQ(plan.dropped[0], "sm__no_such_counter.sum: not a metric of GH100 (sm__no_such_counter.sum)");
  EXPECT_EQ(plan.passes, 1);
  EXPECT_THROW(CounterHost(*cupti, "NOT_A_CHIP"), CuptiError);
}

TEST(MetricPlan, BadSetNamesAreRefusedWithoutCupti) {
  EXPECT_THROW(metric_requests("fast"), MetricSetError);
  EXPECT_THROW(metric_requests("dram__bytes_read.sum,occupancy"), MetricSetError);
  EXPECT_EQ(metric_requests("dram__bytes_read.sum").size(), 2u);  // the duration always comes along
}

TEST(CaseTotals, CountsAddAndRatiosAreWeightedByDuration) {
  const std::vector<std::string> metrics{kDurationMetric, "dram__bytes_read.sum",
                                         "lts__t_sector_hit_rate.pct", "sm__cycles_elapsed.max"};
  const std::vector<double> totals =
      case_totals(metrics, {{"columns", {3000, 100, 90, 7}}, {"rows", {1000, 50, 10, 9}}});
  EXPECT_DOUBLE_EQ(totals[0], 4000);
  EXPECT_DOUBLE_EQ(totals[1], 150);
  EXPECT_DOUBLE_EQ(totals[2], 70);  // (3000 x 90 + 1000 x 10) / 4000
  EXPECT_DOUBLE_EQ(totals[3], 9);
}

TEST(KernelTracer, KernelNamesAreReadable) {
  EXPECT_EQ(readable_kernel_name("_Z6kernelPf"), "kernel");
  EXPECT_EQ(readable_kernel_name("_ZN8flabench2fr11rows_kernelILi8EEEvPf"), "flabench::fr::rows_kernel<8>");
  EXPECT_EQ(readable_kernel_name("plain_c_kernel"), "plain_c_kernel");
  // an unnamed namespace's "(anonymous namespace)" is not the parameter list
  EXPECT_EQ(readable_kernel_name("_ZN8flabench3gsa12_GLOBAL__N_117gsa_logits_kernelIfLi4EEEvPf"),
            "flabench::gsa::gsa_logits_kernel<float, 4>");
  EXPECT_EQ(readable_kernel_name(nullptr), "?");
}

}  // namespace
}  // namespace flabench
