// Copies by Hopper's tensor memory accelerator (sm_90): one thread copies a box of a tensor (tensor_map.h's
// map) into shared memory with one instruction, and the copy completes on an mbarrier by its bytes: the
// thread announces the bytes it expects (expect_bytes, the barrier's one arrival), each copy counts its bytes
// off as it lands, and the phase completes at zero, which the readers wait for (stage_barrier.cuh's
// mbarrier_wait). The hardware writes the box in the map's swizzle, elements outside the tensor as zeros.
#pragma once

#include <cuda.h>  // CUtensorMap

#include "kernels/common/stage_barrier.cuh"

namespace flabench::tma {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define FLA_BENCH_TMA(...) asm volatile(__VA_ARGS__)
#else
#define FLA_BENCH_TMA(...) __trap()
#endif

// One thread: the mbarrier at `barrier` (a shared-window address) completes a phase on one arrival, once the
// bytes that arrival expects have landed. Then a fence, so that the copies' unit sees it initialised, and a
// __syncthreads before anyone waits on it.
__device__ __forceinline__ void init_copy_barrier(unsigned barrier) {
  mbarrier_init(barrier, 1);
  FLA_BENCH_TMA("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// The barrier's arrival for this phase, expecting `bytes` from the copies issued for it.
__device__ __forceinline__ void expect_bytes(unsigned barrier, unsigned bytes) {
  FLA_BENCH_TMA("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(barrier), "r"(bytes)
                : "memory");
}

// The box of `map` at coordinates (c0, c1, c2, c3), innermost first, into shared memory at `dst` (aligned as
// the map's swizzle needs: 1024 bytes for the 128-byte one), its bytes counted off `barrier`'s phase.
__device__ __forceinline__ void copy_box(unsigned dst, const CUtensorMap& map, unsigned barrier, int c0,
                                         int c1, int c2, int c3) {
  FLA_BENCH_TMA(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, "
      "%5, "
      "%6}], [%2];\n" ::"r"(dst),
      "l"(&map), "r"(barrier), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

#undef FLA_BENCH_TMA

}  // namespace flabench::tma
