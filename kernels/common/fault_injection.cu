#include "kernels/common/fault_injection.h"

namespace flabench {
namespace {

__global__ void store_through_null(float* nowhere) {
  nowhere[threadIdx.x] = 1.0f;
}

}  // namespace

void launch_illegal_address_kernel(cudaStream_t stream) {
  store_through_null<<<1, 32, 0, stream>>>(nullptr);
}

}  // namespace flabench
