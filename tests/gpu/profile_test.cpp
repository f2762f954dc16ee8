// fla-bench profile on a GPU: counters for every kernel of a case, DRAM bytes near the op's byte count, and
// per-kernel times that add up to the case. Without a GPU, or where the counters are refused, the tests skip
// and say why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "suites/case_profiler.h"
#include "suites/runner.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

TEST(GpuProfile, CountersAndKernelTimesOfAMultiKernelCase) {
  std::string why;
  if (cuda_device_count(why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
  const std::unique_ptr<Device> device = open_cuda_device(0);
  CaseProfiler profiler(*device, {});
  if (profiler.summary().rfind("counters unavailable", 0) == 0) GTEST_SKIP() << profiler.summary();

  Case c;
  // rwkv7 in fp32: the scan's own backward, over segments (gla's, simple_gla's and rwkv6's take the chunk
  // variant's backward at this shape, kernels/common/fused_recurrent/backward_in_chunks.cuh; rwkv7's 16-bit
  // inputs its chunk form, kernels/rwkv7/backward_in_chunks.h)
  c.op = &testing::op_named("rwkv7");
  c.variant = product_registry().find_variant("rwkv7", "fused_recurrent");
  c.mode = Mode::fwdbwd;
  c.problem = testing::small_problem(*c.op, 4, 4096, 16, 64, 64, DType::fp32);
  c.name = case_name(*c.op, *c.variant, c.mode, c.problem);
  RunSettings settings;
  settings.timing.min_time_s = 0.2;
  settings.floor_bandwidth_gbs = device->record().bandwidth_measured_gbs;
  RecordCollector collector;
  run_cases(*device, {c}, settings, collector, &profiler);
  ASSERT_EQ(collector.records.size(), 1u);
  const CaseRecord& r = collector.records[0];
  ASSERT_EQ(r.status, CaseStatus::ok) << r.reason;
  ASSERT_TRUE(r.counters && r.counters->available) << (r.counters ? r.counters->reason : "no counters");
  std::cout << "  " << profiler.summary() << "\n";

  // forward, the backward's column and row passes: every launch has its own counters
  EXPECT_GE(r.counters->kernels.size(), 3u);
  for (const KernelCounterRecord& k : r.counters->kernels) {
    std::cout << "  kernel " << k.kernel << "\n";
    // Ranges come back numbered; the kernel trace names them.
    EXPECT_NE(k.kernel.find("_kernel"), std::string::npos) << k.kernel;
  }
  // ... in the order the ranges are numbered, the launches': this case's backward launches each segment's
  // column pass (the call's stream) and then its row pass (a side stream; kernels/common/fused_recurrent/
  // variant.cuh, run_backward_pipelined), which completes after the next segment's column pass.
  ASSERT_GE(r.counters->kernels.size(), 5u);
  EXPECT_NE(r.counters->kernels[0].kernel.find("fwd"), std::string::npos) << r.counters->kernels[0].kernel;
  for (std::size_t i = 1; i + 1 < r.counters->kernels.size(); i += 2) {
    EXPECT_NE(r.counters->kernels[i].kernel.find("columns"), std::string::npos) << "range " << i;
    EXPECT_NE(r.counters->kernels[i + 1].kernel.find("rows"), std::string::npos) << "range " << i + 1;
  }
  const double dram =
      r.counters->metrics.at("dram__bytes_read.sum") + r.counters->metrics.at("dram__bytes_write.sum");
  std::cout << "  DRAM bytes " << dram << ", byte floor " << r.derived->floor_bytes << "\n";
  EXPECT_GT(dram,
            0.5 * r.derived->floor_bytes);  // the floor is what must move; a kernel moves at least most of it
  const double counted_ms = r.counters->metrics.at("gpu__time_duration.sum") * 1e-6;
  EXPECT_GT(counted_ms, 0);

  ASSERT_TRUE(r.kernel_times);
  double shares = 0, kernel_ms = 0;
  for (const KernelTimeRecord& k : *r.kernel_times) {
    shares += k.share_pct;
    kernel_ms += k.ms;
    std::cout << "  " << k.kernel << ": " << k.calls << " calls, " << k.ms << " ms, " << k.share_pct << "%\n";
  }
  EXPECT_NEAR(shares, 100, 1e-6);

  // The timeline is one run: as many launches as the kernel times count a run, the first at 0 on stream 0,
  // and its span the timed median. The kernels' summed time is at least that span and more where streams
  // overlap (this case's backward runs its segments' row passes beside the column passes).
  ASSERT_TRUE(r.timeline);
  double calls = 0, span_ms = 0;
  for (const KernelTimeRecord& k : *r.kernel_times) calls += k.calls;
  EXPECT_EQ(double(r.timeline->size()), std::round(calls));
  ASSERT_FALSE(r.timeline->empty());
  EXPECT_EQ(r.timeline->front().start_ms, 0);
  EXPECT_EQ(r.timeline->front().stream, 0);
  for (const LaunchRecord& launch : *r.timeline) {
    EXPECT_GT(launch.end_ms, launch.start_ms) << launch.kernel;
    span_ms = std::max(span_ms, launch.end_ms);
  }
  std::cout << "  kernel time " << kernel_ms << " ms per run over a span of " << span_ms
            << " ms, timed median " << r.timing->median_ms << " ms\n";
  EXPECT_NEAR(span_ms, r.timing->median_ms, 0.15 * r.timing->median_ms);
  EXPECT_GE(kernel_ms, 0.99 * span_ms);
}

}  // namespace
}  // namespace flabench
