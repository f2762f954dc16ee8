// Timing a case: warm-up, then Google Benchmark runs a fixed number of iterations, each one timed on the
// device's own clock (CUDA events; manual time) after an optional L2 flush. Every sample is kept, with the
// host's time to issue the call beside it: a call that takes the host about as long to enqueue as the device
// to run is bound by its launches, not its kernels.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "suites/device.h"

namespace flabench {

struct TimingSettings {
  double min_time_s = 0.5;  // timed samples add up to at least this...
  int min_samples = 10;     // ...and there are at least this many
  int max_samples = 100000;
  double warmup_time_s = 0.1;  // untimed calls first (at least two): module loading, clocks ramping up
  bool l2_flush = true;        // cold L2 before every sample, as nvbench's cold measurement does
};

// The number of timed samples for a call that takes `estimate_ms`.
int sample_count(double estimate_ms, const TimingSettings& settings);

struct CaseTimes {
  std::vector<double> device_ms;  // each sample on the device's clock, from before the call to after its work
  std::vector<double> issue_ms;   // the same samples' host time from the call's start to its return
};

// Returns the samples in milliseconds. Exceptions thrown by `run` propagate after Google Benchmark has
// finished its bookkeeping.
CaseTimes time_case(Device& device, const std::string& name, const std::function<void()>& run,
                    const TimingSettings& settings);

}  // namespace flabench
