// The counter probe's error paths, with the failures a GPU machine can show simulated: each gives one line
// with the cause and the fix, and the run goes on.
#include "profiles/counter_probe.h"

#include <gtest/gtest.h>

namespace flabench {
namespace {

// A platform where everything works unless a test says otherwise.
class FakePlatform : public CounterPlatform {
 public:
  std::optional<std::string> missing, tool;
  CUptiResult init = CUPTI_SUCCESS, supported_result = CUPTI_SUCCESS, chip_result = CUPTI_SUCCESS,
              availability = CUPTI_SUCCESS;
  CUpti_Profiler_DeviceSupported_Params support = [] {
    CUpti_Profiler_DeviceSupported_Params s{};
    s.isSupported = s.architecture = s.sli = s.vGpu = s.confidentialCompute = s.cmp = s.wsl =
        CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    return s;
  }();

  std::optional<std::string> cupti_missing() override { return missing; }
  std::optional<std::string> attached_tool() override { return tool; }
  CUptiResult initialize() override { return init; }
  CUptiResult device_supported(int, CUpti_Profiler_DeviceSupported_Params& s) override {
    s = support;
    return supported_result;
  }
  CUptiResult chip_name(int, std::string& chip) override {
    chip = "GH100";
    return chip_result;
  }
  CUptiResult counter_availability(std::vector<std::uint8_t>& image) override {
    image.assign(16, 1);
    return availability;
  }
  std::string result_name(CUptiResult result) override {
    return "CUPTI_RESULT_" + std::to_string(int(result));
  }
};

CounterAccess probe(FakePlatform& platform, int cc = 90) {
  return probe_counters(platform, 0, cc);
}

void expect_one_line_with(const CounterAccess& access, const std::string& fragment) {
  EXPECT_FALSE(access.available);
  EXPECT_EQ(access.reason.rfind("counters unavailable: ", 0), 0u) << access.reason;
  EXPECT_NE(access.reason.find(fragment), std::string::npos) << access.reason;
  EXPECT_EQ(access.reason.find('\n'), std::string::npos);
}

TEST(CounterProbe, AWorkingPlatformGivesTheChipAndAvailability) {
  FakePlatform platform;
  const CounterAccess access = probe(platform);
  EXPECT_TRUE(access.available);
  EXPECT_EQ(access.chip, "GH100");
  EXPECT_EQ(access.availability_image.size(), 16u);
  EXPECT_TRUE(access.reason.empty());
}

TEST(CounterProbe, EachFailureNamesItsCauseAndFix) {
  {
    FakePlatform p;
    p.missing = "CUPTI is not installed";
    expect_one_line_with(probe(p), "CUPTI is not installed");
  }
  {
    FakePlatform p;
    p.tool = "CUDA_INJECTION64_PATH=/opt/nsight/libToolsInjection64.so";
    expect_one_line_with(probe(p), "another profiler is attached");
  }
  {
    FakePlatform p;
    expect_one_line_with(probe(p, 70), "compute capability 7.0 has no Range Profiler counters");
  }
  {
    FakePlatform p;
    p.availability = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;  // where restricted counters show up
    expect_one_line_with(probe(p), "NVreg_RestrictProfilingToAdminUsers=0");
    expect_one_line_with(probe(p), "ERR_NVGPUCTRPERM");
  }
  {
    FakePlatform p;
    p.init = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    expect_one_line_with(probe(p), "another profiler (ncu, nsys, compute-sanitizer) holds the counters");
  }
  {
    FakePlatform p;
    p.init = CUPTI_ERROR_NOT_INITIALIZED;
    expect_one_line_with(probe(p), "driver 580 or newer");
  }
  {
    FakePlatform p;
    p.availability = CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED;
    expect_one_line_with(probe(p), "MIG");
  }
  {
    FakePlatform p;
    p.support.isSupported = CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
    p.support.vGpu = CUPTI_PROFILER_CONFIGURATION_DISABLED;
    expect_one_line_with(probe(p), "vGPU whose profiling is disabled");
  }
  {
    FakePlatform p;
    p.support.isSupported = p.support.wsl = CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
    expect_one_line_with(probe(p), "WSL");
  }
  {
    FakePlatform p;
    p.support.isSupported = p.support.confidentialCompute = CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
    expect_one_line_with(probe(p), "confidential computing");
  }
}

}  // namespace
}  // namespace flabench
