#include "kernels/common/cuda_check.h"

#include <map>
#include <mutex>
#include <utility>

namespace flabench {

bool CudaError::is_sticky() const {
  switch (code_) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(code, std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) + ") in " +
                            call + " at " + file + ":" + std::to_string(line));
}

int current_device_attribute(cudaDeviceAttr attribute) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, int> known;
  int device = 0;
  FLA_CUDA_CHECK(cudaGetDevice(&device));
  const std::pair<int, int> key{device, int(attribute)};
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto at = known.find(key); at != known.end()) return at->second;
  int value = 0;
  FLA_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return known[key] = value;
}

}  // namespace flabench
