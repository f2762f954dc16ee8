// A deliberate CUDA fault, for testing that a run survives one (fla-bench's worker fault injection): a kernel
// that stores through a null pointer, which leaves the CUDA context unusable (cudaErrorIllegalAddress).
#pragma once

#include <cuda_runtime_api.h>

namespace flabench {

void launch_illegal_address_kernel(cudaStream_t stream);

}  // namespace flabench
