#include "suites/device.h"

#include <charconv>

#include "suites/usage_error.h"

namespace flabench {

int cuda_device_count(std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    why = std::string(cudaGetErrorString(status));
    cudaGetLastError();  // the probe's error must not surface at a later call
    return 0;
  }
  if (count == 0) why = "the CUDA runtime sees no device";
  return count;
}

std::unique_ptr<Device> open_device(const std::string& spec, std::string& note) {
  if (spec == "cpu") return open_cpu_device();
  if (spec == "auto") {
    std::string why;
    if (cuda_device_count(why) > 0) return open_cuda_device(0);
    note = "no CUDA device (" + why + "): running the fp64 cpu reference backend on small shapes";
    return open_cpu_device();
  }
  int index = 0;
  if (spec != "cuda") {
    const std::string_view digits = spec.starts_with("cuda:") ? std::string_view(spec).substr(5) : "";
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || index < 0)
      throw UsageError("--device: '" + spec + "' is not a device (use auto, cpu, cuda or cuda:N)");
  }
  std::string why;
  const int count = cuda_device_count(why);
  if (count == 0) throw UsageError("--device " + spec + ": no CUDA device available (" + why + ")");
  if (index >= count)
    throw UsageError("--device " + spec + ": there are only " + std::to_string(count) +
                     " CUDA devices (cuda:0 .. cuda:" + std::to_string(count - 1) + ")");
  return open_cuda_device(index);
}

}  // namespace flabench
