#include "kernels/common/cuda_check.h"

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

}  // namespace flabench
