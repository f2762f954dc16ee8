// Timing through Google Benchmark on the host device: the sample count, the samples and failures.
#include "suites/timing.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace flabench {
namespace {

TEST(TimeCase, TakesAtLeastTheMinimumSamplesOfTheCall) {
  std::unique_ptr<Device> device = open_cpu_device();
  TimingSettings settings;
  settings.min_time_s = 0.01;
  settings.min_samples = 7;
  settings.warmup_time_s = 0;
  int calls = 0;
  const CaseTimes times = time_case(
      *device, "sleep", [&] { ++calls, std::this_thread::sleep_for(std::chrono::milliseconds(2)); },
      settings);
  EXPECT_EQ(times.device_ms.size(), 7u);
  EXPECT_EQ(calls, 7 + 2);  // two warm-up calls
  for (double ms : times.device_ms) EXPECT_GE(ms, 2.0);
  // The host's side of each sample: the call returns after its sleep, inside the timer's interval.
  ASSERT_EQ(times.issue_ms.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_GE(times.issue_ms[i], 2.0);
    EXPECT_LE(times.issue_ms[i], times.device_ms[i]);
  }
}

TEST(TimeCase, AnErrorInTheCaseReachesTheCaller) {
  std::unique_ptr<Device> device = open_cpu_device();
  TimingSettings settings;
  settings.warmup_time_s = 0;
  int calls = 0;
  auto fails_third_time = [&] {
    if (++calls == 3) throw std::runtime_error("kernel failed");
  };
  EXPECT_THROW(time_case(*device, "fails", fails_third_time, settings), std::runtime_error);
}

}  // namespace
}  // namespace flabench
