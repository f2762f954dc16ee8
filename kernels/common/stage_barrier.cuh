// A ring stage's two mbarriers (sm_80+), for a producer warp that fills shared-memory stages by cp.async and
// consumer warps that read them, without a block-wide barrier between the two: `full` completes a phase when
// every producer lane's copies into the stage have landed (cp.async.mbarrier.arrive.noinc), `empty` when
// every consumer thread has read it. Each use of a stage is one phase of each; a waiter names the phase by
// its parity (the stage's use count & 1). mbarrier_init and mbarrier_wait serve any mbarrier so (tma.cuh's
// copies' too).
#pragma once

#include "kernels/common/shared_address.cuh"

namespace flabench {

// Waits until the mbarrier at shared-window address `barrier` has completed the phase of parity `parity`.
__device__ __forceinline__ void mbarrier_wait(unsigned barrier, unsigned parity) {
  // try_wait (sm_90: the hardware suspends the thread a while) where it exists, else a test_wait loop
#if __CUDA_ARCH__ >= 900
#define FLA_MBARRIER_WAIT "mbarrier.try_wait.parity.shared.b64"
#else
#define FLA_MBARRIER_WAIT "mbarrier.test_wait.parity.shared.b64"
#endif
  asm volatile("{\n .reg .pred done;\n WAIT_%=:\n " FLA_MBARRIER_WAIT
               " done, [%0], %1;\n @!done bra WAIT_%=;\n}\n" ::"r"(barrier),
               "r"(parity)
               : "memory");
#undef FLA_MBARRIER_WAIT
}

// One thread: the mbarrier at shared-window address `barrier` completes a phase on `arrivals` arrivals.
__device__ __forceinline__ void mbarrier_init(unsigned barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(barrier), "r"(arrivals));
}

struct StageBarrier {
  unsigned long long full, empty;

  // One thread, before a __syncthreads that publishes the barriers to the block.
  __device__ void init(unsigned producers, unsigned consumers) {
    mbarrier_init(shared_address(&full), producers);
    mbarrier_init(shared_address(&empty), consumers);
  }
  // A producer lane: `full` hears from this lane once its cp.async copies issued so far have landed.
  __device__ void copies_issued() {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(shared_address(&full)) : "memory");
  }
  // A consumer thread: done reading the stage (its loads ordered before the arrival).
  __device__ void consumed() {
    asm volatile(
        "{\n .reg .b64 state;\n mbarrier.arrive.shared.b64 state, [%0];\n}\n" ::"r"(shared_address(&empty))
        : "memory");
  }
  __device__ void wait_full(unsigned parity) { mbarrier_wait(shared_address(&full), parity); }
  __device__ void wait_empty(unsigned parity) { mbarrier_wait(shared_address(&empty), parity); }
};

}  // namespace flabench
