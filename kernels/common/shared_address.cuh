// A pointer into shared memory as the 32-bit shared-window address that cp.async, ldmatrix and other PTX
// take.
#pragma once

#include <cuda_runtime.h>

namespace flabench {

__device__ __forceinline__ unsigned shared_address(const void* shared) {
  return static_cast<unsigned>(__cvta_generic_to_shared(shared));
}

}  // namespace flabench
