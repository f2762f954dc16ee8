// The console lines of a profiled case: counters against the byte floor and each kernel's share.
#include "results/profile_text.h"

#include <gtest/gtest.h>

#include "tests/results/sample_records.h"

namespace flabench {
namespace {

CaseRecord profiled_case() {
  CaseRecord r = testing::sample_case();  // byte floor 6.08e7 bytes
  CounterRecord counters;
  counters.available = true;
  counters.chip = "GH100";
  counters.metrics = {{"dram__bytes_read.sum", 5.0e7},
                      {"dram__bytes_write.sum", 3.0e7},
                      {"gpu__time_duration.sum", 4.0e4},  // ns: 80 MB in 40 us is 2000 GB/s
                      {"sm__warps_active.avg.pct_of_peak_sustained_active", 12.5},
                      {"l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", 0},
                      {"l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum", 64}};
  counters.kernels = {{"flabench::fused::fwd_kernel<flabench::GlaForm>",
                       {{"dram__bytes_read.sum", 4.0e7}, {"dram__bytes_write.sum", 1.0e7}}},
                      {"bwd_kernel", {{"dram__bytes_read.sum", 1.0e7}, {"dram__bytes_write.sum", 2.0e7}}}};
  r.counters = counters;
  r.kernel_times = std::vector<KernelTimeRecord>{
      {"flabench::fused::fwd_kernel<flabench::GlaForm>", 1, 0.03, 75}, {"bwd_kernel", 1, 0.01, 25}};
  return r;
}

TEST(ProfileText, CountersAreSetAgainstTheByteFloorAndTheKernelsShareTheTime) {
  const std::vector<std::string> lines = profile_lines(profiled_case());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_NE(lines[0].find("DRAM 0.08 GB = 1.32x floor at 2000 GB/s"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("occupancy 12.5%"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("spills 64 B"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("L2 hit"), std::string::npos) << "a metric not collected is not printed";
  EXPECT_NE(lines[2].find("75.0%"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("0.05"), std::string::npos) << "the kernel's own DRAM bytes: " << lines[2];
  EXPECT_NE(lines[2].find(" fwd_kernel<GlaForm>"), std::string::npos) << "namespaces left out: " << lines[2];
  EXPECT_NE(lines[3].find("0.03"), std::string::npos) << lines[3];
}

TEST(ProfileText, UnavailableCountersPrintOnlyTheKernelTimes) {
  CaseRecord r = profiled_case();
  r.counters->available = false;
  r.counters->reason = "counters unavailable: another profiler is attached";
  const std::vector<std::string> lines = profile_lines(r);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].find("counters"), std::string::npos);
  EXPECT_NE(lines[1].find(" - "), std::string::npos) << "no DRAM bytes without counters: " << lines[1];
}

TEST(ProfileText, ATimedCaseWithoutProfileHasNoLines) {
  EXPECT_TRUE(profile_lines(testing::sample_case()).empty());
}

}  // namespace
}  // namespace flabench
