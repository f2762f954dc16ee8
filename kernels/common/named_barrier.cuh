// A named barrier (bar.sync / bar.arrive) for kernels whose warps take different roles: a producer arrives
// without waiting, its consumers sync. Used by the fused_recurrent column passes' converter warps
// (fused_recurrent/column_feed.cuh) and rwkv7 chunk's state-pass copy warps (rwkv7/chunk_states_feed.cuh).
#pragma once

#include <cuda_runtime.h>

namespace flabench {

// A named barrier of `threads` threads (a multiple of 32): sync() waits for all of them, arrive() counts the
// caller in without waiting. Both order the caller's earlier shared-memory accesses before the barrier
// completes for the threads that wait on it. Id 0 is __syncthreads's.
struct NamedBarrier {
  int id, threads;
  __device__ void sync() const { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory"); }
  __device__ void arrive() const { asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory"); }
  // sync()'s unaligned form, for a barrier whose waiting threads reach it from different places in the code
  // (different roles' loops): bar.sync is barrier.sync.aligned, which promises that every thread blocking in
  // one generation executes the same instruction (compute-sanitizer's synccheck holds kernels to it).
  __device__ void sync_unaligned() const {
    asm volatile("barrier.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
  }
};

}  // namespace flabench
