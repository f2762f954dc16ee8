// CUDA runtime calls are checked; a failure becomes a CudaError naming the call and where it was made.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace flabench {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }
  // Errors after which the CUDA context is unusable and every later call fails too.
  bool is_sticky() const;

 private:
  cudaError_t code_;
};

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

// An attribute of the current device, read from the driver once per device and attribute: variants ask
// for these while they launch, inside timed regions.
int current_device_attribute(cudaDeviceAttr attribute);

}  // namespace flabench

#define FLA_CUDA_CHECK(call)                                                     \
  do {                                                                           \
    const cudaError_t fla_cuda_status_ = (call);                                 \
    if (fla_cuda_status_ != cudaSuccess)                                         \
      ::flabench::throw_cuda_error(fla_cuda_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: reports launch-configuration errors without synchronising.
#define FLA_CUDA_CHECK_LAUNCH() FLA_CUDA_CHECK(cudaGetLastError())
