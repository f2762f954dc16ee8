// Hardware counters of one case's kernels with the CUPTI Range Profiler: auto ranges (each kernel launch is a
// range; CUDA 13 names them by launch index, so the caller names them from a kernel trace) and user replay
// (fla-bench reruns the case once per pass, restoring its inputs and flushing the L2 before each pass,
// outside the profiled region), so multi-pass metric sets see the same work every pass. Never overlaps
// timing: the profiler serializes kernels.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "profiles/metric_plan.h"

namespace flabench {

struct KernelCounters {
  std::string kernel;          // the range's name: the launch index
  std::vector<double> values;  // by the plan's metrics
};

class CounterSession {
 public:
  // Enables the Range Profiler on the current CUDA context. `max_kernels`: launches one run of a case makes,
  // at most. Throws CuptiError.
  CounterSession(const CuptiLibrary& cupti, CounterHost& host, const MetricPlan& plan, int max_kernels);
  ~CounterSession();
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  // Every pass: `restore`, then `run` under the profiler. Returns one entry per kernel launch of a run, in
  // launch order. Throws CuptiError (also when ranges were dropped: more launches than max_kernels).
  std::vector<KernelCounters> collect(const std::function<void()>& restore, const std::function<void()>& run);

 private:
  const CuptiLibrary& cupti_;
  CounterHost& host_;
  const MetricPlan& plan_;
  int max_kernels_;
  CUpti_RangeProfiler_Object* profiler_ = nullptr;
  std::vector<std::uint8_t> counter_data_;
};

// One value per metric for the whole case from its kernels: counts (".sum") add up; ratios, percentages and
// averages are weighted by each kernel's duration (the plan's first metric, gpu__time_duration.sum); ".max"
// takes the largest.
std::vector<double> case_totals(const std::vector<std::string>& metrics,
                                const std::vector<KernelCounters>& kernels);

}  // namespace flabench
