#include "profiles/counter_probe.h"

#include <cuda_runtime_api.h>

#include <cstdlib>

namespace flabench {
namespace {

constexpr int kMinComputeCapability = 75;  // the Range Profiler's floor (Turing)

class CuptiPlatform : public CounterPlatform {
 public:
  std::optional<std::string> cupti_missing() override {
    std::string why;
    cupti_ = CuptiLibrary::get(why);
    return cupti_ ? std::nullopt : std::optional<std::string>(why);
  }
  std::optional<std::string> attached_tool() override {
    // ncu, nsys and compute-sanitizer inject themselves through this variable, and CUPTI serves one client.
    const char* injection = std::getenv("CUDA_INJECTION64_PATH");
    if (injection && *injection) return std::string("CUDA_INJECTION64_PATH=") + injection;
    return std::nullopt;
  }
  CUptiResult initialize() override {
    auto params = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    return cupti_->cuptiProfilerInitialize(&params);
  }
  CUptiResult device_supported(int device, CUpti_Profiler_DeviceSupported_Params& support) override {
    support = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
    support.cuDevice = device;
    support.api = CUPTI_PROFILER_RANGE_PROFILING;
    return cupti_->cuptiProfilerDeviceSupported(&support);
  }
  CUptiResult chip_name(int device, std::string& chip) override {
    auto params = FLA_BENCH_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    params.deviceIndex = static_cast<std::size_t>(device);
    const CUptiResult result = cupti_->cuptiDeviceGetChipName(&params);
    if (result == CUPTI_SUCCESS && params.pChipName) chip = params.pChipName;
    return result;
  }
  CUptiResult counter_availability(std::vector<std::uint8_t>& image) override {
    cudaFree(nullptr);  // the availability is asked of the current context: make sure there is one
    auto params = FLA_BENCH_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    CUptiResult result = cupti_->cuptiProfilerGetCounterAvailability(&params);
    if (result != CUPTI_SUCCESS) return result;
    image.resize(params.counterAvailabilityImageSize);
    params.pCounterAvailabilityImage = image.data();
    return cupti_->cuptiProfilerGetCounterAvailability(&params);
  }
  std::string result_name(CUptiResult result) override { return cupti_->result_name(result); }

 private:
  const CuptiLibrary* cupti_ = nullptr;
};

// The first configuration field the device reports as not supported, with what to do about it.
std::optional<std::string> unsupported_configuration(const CUpti_Profiler_DeviceSupported_Params& s) {
  auto bad = [](CUpti_Profiler_Support_Level level) {
    return level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  };
  if (bad(s.architecture)) return "this GPU's architecture has no counters for the Range Profiler";
  if (bad(s.sli)) return "SLI is enabled, and SLI devices cannot be profiled";
  if (s.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
    return "a vGPU whose profiling is disabled: enable it for this VM on the host (vGPU profiling policy)";
  if (bad(s.vGpu)) return "a vGPU that does not support profiling";
  if (bad(s.confidentialCompute)) return "confidential computing is on, which hides the counters";
  if (bad(s.cmp)) return "a CMP (crypto mining) device, which has no counters";
  if (bad(s.wsl)) return "WSL without counter support: update the Windows NVIDIA driver";
  if (bad(s.isSupported)) return "the device does not support the Range Profiler";
  return std::nullopt;
}

CounterAccess unavailable(std::string reason) {
  return {false, "counters unavailable: " + std::move(reason), {}, {}};
}

}  // namespace

std::unique_ptr<CounterPlatform> cupti_platform() {
  return std::make_unique<CuptiPlatform>();
}

std::string explain_counter_failure(CUptiResult result, const std::string& name) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return name +
             " (ERR_NVGPUCTRPERM): the driver lets only admins read GPU counters; run as root, or set "
             "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' in /etc/modprobe.d and reload the "
             "driver";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
      return name +
             ": another profiler (ncu, nsys, compute-sanitizer) holds the counters; run fla-bench profile "
             "alone, or use --profile-once under that tool";
    case CUPTI_ERROR_NOT_INITIALIZED:
      return name + ": the NVIDIA driver is too old for CUPTI 13 (driver 580 or newer is needed)";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return name + ": a MIG slice; counters need the whole GPU (MIG off)";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return name + ": a virtualized GPU without profiling support";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      return name + ": confidential computing is on, which hides the counters";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      return name + ": a CMP (crypto mining) device, which has no counters";
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
      return name + ": SLI devices cannot be profiled";
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return name + ": WSL without counter support; update the Windows NVIDIA driver";
    default:
      return name;
  }
}

CounterAccess probe_counters(CounterPlatform& platform, int device, int compute_capability) {
  if (const auto missing = platform.cupti_missing()) return unavailable(*missing);
  if (const auto tool = platform.attached_tool())
    return unavailable(
        "another profiler is attached (" + *tool +
        "); fla-bench's own counters stay off (use --profile-once to run each case once under it)");
  if (compute_capability < kMinComputeCapability)
    return unavailable("compute capability " + std::to_string(compute_capability / 10) + "." +
                       std::to_string(compute_capability % 10) +
                       " has no Range Profiler counters (7.5 or newer)");
  CUptiResult result = platform.initialize();
  if (result != CUPTI_SUCCESS)
    return unavailable(explain_counter_failure(result, platform.result_name(result)));
  CUpti_Profiler_DeviceSupported_Params support{};
  result = platform.device_supported(device, support);
  if (result != CUPTI_SUCCESS)
    return unavailable(explain_counter_failure(result, platform.result_name(result)));
  if (const auto why = unsupported_configuration(support)) return unavailable(*why);
  CounterAccess access;
  result = platform.chip_name(device, access.chip);
  if (result != CUPTI_SUCCESS)
    return unavailable(explain_counter_failure(result, platform.result_name(result)));
  result = platform.counter_availability(access.availability_image);
  if (result != CUPTI_SUCCESS)
    return unavailable(explain_counter_failure(result, platform.result_name(result)));
  access.available = true;
  return access;
}

}  // namespace flabench
