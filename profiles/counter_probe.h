// Before profiling: can this process read the GPU's hardware counters? If not, one line with the cause and
// the fix, and the run goes on with timing only (counters recorded as unavailable with that line).
//
// The ladder: CUPTI loadable; no other profiler attached (CUPTI takes one client); compute capability 7.5 or
// newer; cuptiProfilerInitialize; cuptiProfilerDeviceSupported (architecture, SLI, vGPU, confidential
// compute, CMP, WSL); the chip name; the counter availability image, which is where restricted counters
// (ERR_NVGPUCTRPERM) show up.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiles/cupti_library.h"

namespace flabench {

struct CounterAccess {
  bool available = false;
  std::string reason;  // why not, with the fix; empty when available
  std::string chip;    // "GH100"
  std::vector<std::uint8_t> availability_image;
};

// What the probe asks of the platform; cupti_platform() is the real one, tests pass in failures.
class CounterPlatform {
 public:
  virtual ~CounterPlatform() = default;
  virtual std::optional<std::string> cupti_missing() = 0;  // why CUPTI cannot be loaded
  virtual std::optional<std::string> attached_tool() = 0;  // e.g. the CUDA_INJECTION64_PATH of ncu or nsys
  virtual CUptiResult initialize() = 0;
  virtual CUptiResult device_supported(int device, CUpti_Profiler_DeviceSupported_Params& support) = 0;
  virtual CUptiResult chip_name(int device, std::string& chip) = 0;
  virtual CUptiResult counter_availability(std::vector<std::uint8_t>& image) = 0;
  virtual std::string result_name(CUptiResult result) = 0;
};

std::unique_ptr<CounterPlatform> cupti_platform();

// `device`'s counters through `platform`; `compute_capability` as 90 for sm_90. Never throws.
CounterAccess probe_counters(CounterPlatform& platform, int device, int compute_capability);

// The cause and the fix for a CUPTI result that stops counter collection.
std::string explain_counter_failure(CUptiResult result, const std::string& result_name);

}  // namespace flabench
