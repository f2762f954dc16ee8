// `fla-bench profile`: after a case is timed, its hardware counters (CUPTI Range Profiler, replayed with the
// inputs restored and the L2 flushed before every pass) and its kernels' shares of the GPU time (CUPTI
// activity records). Set up once per run: the counter probe and the metric plan; where counters are
// unavailable each case records why and timing goes on.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "results/record.h"
#include "suites/device.h"

namespace flabench {

struct ProfileSettings {
  std::string metrics = "default";  // a set (default, deep) or a comma-separated list of CUPTI metric names
  bool kernel_times = true;
  int kernel_time_runs = 5;  // runs the activity records are averaged over (fewer for a case over 50 ms)
};

class CaseProfiler {
 public:
  // Throws MetricSetError (profiles/metric_plan.h) for a bad metric set, on any device.
  CaseProfiler(Device& device, const ProfileSettings& settings);
  ~CaseProfiler();
  CaseProfiler(const CaseProfiler&) = delete;
  CaseProfiler& operator=(const CaseProfiler&) = delete;

  // One line for the console: the chip, metric count and passes, or why counters are unavailable.
  std::string summary() const;

  // `restore` puts the case's inputs back and flushes the L2; `run` is one call of the case (its kernels are
  // what is measured). Fills record.counters, record.kernel_times and record.timeline.
  void profile(const std::function<void()>& restore, const std::function<void()>& run, CaseRecord& record);

 private:
  struct Counters;
  // Fills record.kernel_times and record.timeline (when asked for and CUPTI is there); returns one run's
  // launches by name.
  std::vector<std::string> trace_kernel_times(const std::function<void()>& restore,
                                              const std::function<void()>& run, CaseRecord& record);

  ProfileSettings settings_;
  std::unique_ptr<Counters> counters_;
  std::string unavailable_;  // why counters are off, for every case
  bool gpu_ = false;
};

}  // namespace flabench
