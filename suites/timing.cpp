#include "suites/timing.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

namespace flabench {
namespace {

// Google Benchmark reports each run here; fla-bench's own reporters take over from the samples.
class QuietReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs)
      if (run.error_occurred) error = run.error_message;
  }
  std::string error;
};

}  // namespace

int sample_count(double estimate_ms, const TimingSettings& settings) {
  const double wanted =
      estimate_ms > 0 ? std::ceil(settings.min_time_s * 1e3 / estimate_ms) : settings.max_samples;
  return static_cast<int>(std::clamp<double>(wanted, settings.min_samples, settings.max_samples));
}

CaseTimes time_case(Device& device, const std::string& name, const std::function<void()>& run,
                    const TimingSettings& settings) {
  std::unique_ptr<IntervalTimer> timer = device.make_timer();
  double issue_ms = 0;  // the last timed call's
  auto timed_call = [&] {
    if (settings.l2_flush) device.flush_l2();
    timer->start();
    const auto issue_start = std::chrono::steady_clock::now();
    run();
    issue_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - issue_start).count();
    timer->stop();
    return timer->elapsed_ms();
  };

  std::vector<double> warmup;
  const auto warmup_start = std::chrono::steady_clock::now();
  while (warmup.size() < 2 ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - warmup_start).count() <
             settings.warmup_time_s)
    warmup.push_back(timed_call());
  std::sort(warmup.begin(), warmup.end());
  const int iterations = sample_count(warmup[warmup.size() / 2], settings);

  CaseTimes times;
  std::exception_ptr failure;
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark(name.c_str(),
                               [&](benchmark::State& state) {
                                 for (auto _ : state) {
                                   try {
                                     const double ms = timed_call();
                                     state.SetIterationTime(ms * 1e-3);
                                     times.device_ms.push_back(ms);
                                     times.issue_ms.push_back(issue_ms);
                                   } catch (...) {
                                     failure = std::current_exception();
                                     state.SkipWithError("the case threw; see the error it reports");
                                     break;
                                   }
                                 }
                               })
      ->UseManualTime()
      ->Iterations(iterations)
      ->Unit(benchmark::kMillisecond);
  QuietReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  if (failure) std::rethrow_exception(failure);
  return times;
}

}  // namespace flabench
