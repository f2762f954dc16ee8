// Per-kernel GPU times of a multi-kernel variant with the CUPTI Activity API (concurrent-kernel records:
// start and end on the GPU's clock, launch overhead excluded). Off unless asked for: tracing instruments
// every kernel module, so it never runs while fla-bench times a case.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "profiles/launch_timeline.h"

namespace flabench {

struct KernelTime {
  std::string kernel;  // demangled, without the return type and parameter list
  double calls = 0;    // launches per run of the case
  double ms = 0;       // GPU time per run of the case
};

struct KernelTrace {
  std::vector<KernelTime> kernels;    // in order of first completion
  std::vector<std::string> launches;  // the kernels of the first run, in launch order
  std::vector<LaunchSpan> timeline;   // the last run's launches, in order of start
};

class KernelTracer {
 public:
  // Starts tracing, or returns nullptr with the reason in `why` (CUPTI missing, another profiler attached).
  static std::unique_ptr<KernelTracer> start(std::string& why);
  ~KernelTracer();
  KernelTracer(const KernelTracer&) = delete;
  KernelTracer& operator=(const KernelTracer&) = delete;

  // Runs `run` `repeats` times and returns each kernel's calls and time per run, one run's launches and the
  // last run's timeline.
  // Throws std::runtime_error when CUPTI dropped records.
  KernelTrace measure(const std::function<void()>& run, int repeats);

 private:
  KernelTracer() = default;
};

// "void ns::kernel<float, 8>(ns::Params)" -> "ns::kernel<float, 8>"; a name that is not mangled stays.
std::string readable_kernel_name(const char* mangled);

}  // namespace flabench
