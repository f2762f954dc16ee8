// One run's kernel launches on the GPU's clock: which stream each ran on and when, so that a variant that
// spreads its work over several streams shows which chain of launches sets its wall time; and a run's
// kernels in launch order, which names the counters' ranges. Built from the CUPTI activity records
// KernelTracer gathers; host-only arithmetic, checked on the CPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flabench {

// A kernel record as CUPTI gives it: GPU clock in ns, CUPTI's stream id, and the correlation id of the
// launch call (CUPTI numbers the host's calls in the order it makes them).
struct TracedLaunch {
  std::string kernel;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t stream = 0;
  std::uint32_t correlation = 0;
};

struct LaunchSpan {
  std::string kernel;
  int stream = 0;  // 0: the stream of the run's first launch, then 1, 2, ... in order of first use
  double start_ms = 0, end_ms = 0;  // from the run's first start
};

// The last of `runs` runs traced one after another (a run's launches all start after the previous run's
// end): its launches in order of start. Empty when the records do not split into `runs` equal runs.
std::vector<LaunchSpan> last_run_timeline(std::vector<TracedLaunch> records, int runs);

// The first of `runs` runs' kernels (records in completion order, as CUPTI hands them over) in the order
// they were launched: the order the range profiler numbers its ranges in. Where a variant spreads its
// launches over several streams they complete in another order. Empty as last_run_timeline's.
std::vector<std::string> first_run_launches(std::vector<TracedLaunch> records, int runs);

}  // namespace flabench
