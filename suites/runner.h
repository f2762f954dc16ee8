// Runs cases one after another: check, then time, then hand the record to the reporters, so each finished
// case is on disk before the next starts.
#pragma once

#include <cstdint>
#include <vector>

#include "results/reporter.h"
#include "suites/cases.h"
#include "suites/device.h"
#include "suites/timing.h"

namespace flabench {

class CaseProfiler;

struct RunSettings {
  TimingSettings timing;
  bool time = true;
  bool check = true;
  // Each case runs once inside its NVTX range, with no checks, warm-up or timing, for ncu or nsys.
  bool profile_once = false;
  std::uint64_t seed = 0;
  double floor_bandwidth_gbs = 0;  // the byte floor's bandwidth
};

// A case that throws is recorded as failed with the error. After an error that leaves the CUDA context
// unusable, the remaining cases are recorded as failed without running. With a `profiler`, each case is
// profiled after it is timed (fla-bench profile).
RunSummary run_cases(Device& device, const std::vector<Case>& cases, const RunSettings& settings,
                     Reporter& reporter, CaseProfiler* profiler = nullptr);

// The record of a case before it runs: names and axes (`variant` names the variant, or a battery case's
// pair).
CaseRecord base_record(const std::string& name, const OpSpec& op, const std::string& variant, Mode mode,
                       const Problem& problem);

DerivedRecord derive_metrics(const Case& c, const TimingRecord& timing, double floor_bandwidth_gbs);

}  // namespace flabench
