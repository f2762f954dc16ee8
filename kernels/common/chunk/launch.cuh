// Launches of the chunk variant's forward kernels, by Dims rather than by Problem, so that an op whose
// passes are GLA passes over other tensors (gsa: s in k's role, the slots in the key channels' place)
// launches them with its own dims: the prepare kernel (the scan's operand), the scan (states before every
// chunk) and the output pass.
#pragma once

#include <cstddef>

#include "kernels/common/chunk/forward.cuh"
#include "kernels/common/chunk/scan.cuh"
#include "kernels/common/cuda_check.h"

namespace flabench::chunk {

inline std::size_t prepare_shared_bytes(int C, int K) {
  return sizeof(float) * (Decays::floats(C, K) + C * K);
}
inline std::size_t output_shared_bytes(int C, int K, int VT, std::size_t input_bytes) {
  return sizeof(float) * output_pass_floats(C, K, VT, int(input_bytes));
}
// The output pass's value tile: 128 where V needs it and it fits the current device's shared memory.
inline int output_values(const Dims& d, std::size_t input_bytes) {
  const auto optin = std::size_t(current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  return d.V > 64 && output_shared_bytes(d.C, d.K, 128, input_bytes) <= optin ? 128 : 64;
}

// The scan's operand for every chunk (chunk_prepare_kernel) and, for the forward, each chunk's summed decay.
template <class Form, class T, Operand kind>
void launch_prepare(const Pointers<T>& pointers, const Dims& d, const Workspace& ws, cudaStream_t stream) {
  const std::size_t bytes = prepare_shared_bytes(d.C, d.K);
  allow_shared_memory(chunk_prepare_kernel<Form, T, kind>, bytes);
  chunk_prepare_kernel<Form, T, kind>
      <<<dim3(unsigned(d.B * d.H), unsigned(d.chunks())), kPrepareThreads, bytes, stream>>>(pointers, d, ws);
  FLA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_scan(const Scan<T>& scan, const Dims& d, cudaStream_t stream) {
  const auto tiles = [](int size) { return unsigned((size + kScanTile - 1) / kScanTile); };
  chunk_scan_kernel<T>
      <<<dim3(unsigned(d.B * d.H), tiles(d.K), tiles(d.V)), kScanThreads, 0, stream>>>(scan, d);
  FLA_CUDA_CHECK_LAUNCH();
}

// o for every chunk and query head from the states before the chunks.
template <class Form, class T>
void launch_output(const Pointers<T>& pointers, const Dims& d, const float* states, cudaStream_t stream) {
  const int VT = output_values(d, sizeof(T));
  const std::size_t bytes = output_shared_bytes(d.C, d.K, VT, sizeof(T));
  allow_shared_memory(chunk_output_kernel<Form, T>, bytes);
  chunk_output_kernel<Form, T>
      <<<dim3(unsigned(d.B * d.H * d.G), unsigned(d.chunks()), unsigned((d.V + VT - 1) / VT)),
         unsigned(output_threads(VT)), bytes, stream>>>(pointers, d, states, VT);
  FLA_CUDA_CHECK_LAUNCH();
}

}  // namespace flabench::chunk
