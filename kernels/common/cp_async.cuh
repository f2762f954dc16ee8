// cp.async (sm_80+): copies from global into shared memory that run while the threads go on, committed in
// groups and waited for by how many groups may still be in flight. The fused scans stage their next chunk
// so (fused_recurrent/staging.cuh), the chunk kernels their tiles.
#pragma once

#include "kernels/common/shared_address.cuh"

namespace flabench {

// A copy of `bytes` (4, 8 or 16) into shared memory at address `dst` (a shared-window address); 16-byte
// copies bypass L1 (.cg), the smaller ones cannot.
__device__ __forceinline__ void cp_async_to(unsigned dst, const void* global, int bytes) {
  if (bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global));
  else if (bytes == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(global));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(global));
}
__device__ __forceinline__ void cp_async(void* smem, const void* global, int bytes) {
  cp_async_to(shared_address(smem), global, bytes);
}
// 16 bytes into shared memory at `dst` (a shared-window address), or 16 zero bytes where !in (the source is
// then not read, but must still be a valid address).
__device__ __forceinline__ void cp_async16_or_zeros_to(unsigned dst, const void* global, bool in) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global), "r"(in ? 16 : 0));
}
__device__ __forceinline__ void cp_async16_or_zeros(void* smem, const void* global, bool in) {
  cp_async16_or_zeros_to(shared_address(smem), global, in);
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}
// Every copy this thread issued, committed or not (and so every mbarrier arrival they carry).
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;\n" ::);
}
// A hint that `bytes` (a multiple of 16) from `global` (16-byte aligned) will be read soon: one instruction
// brings them into L2 (sm_90's bulk prefetch); before sm_90 nothing.
__device__ __forceinline__ void prefetch_to_l2(const void* global, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(global), "r"(bytes) : "memory");
#endif
}

}  // namespace flabench
