// Compiled, not run, by tests/scripts/test_arch_paths.py for each architecture the CUDA_ARCHITECTURES option
// is documented for (80, 86, 89, 90): the kernel code that differs by architecture, in small kernels of its
// own, so that every path is built and its instructions read without compiling whole kernel files for four
// targets on CI's two cores. CI's default build compiles sm_90 only, so a break in the older GPUs' paths
// (stop 75 found three in store_parts_transposed's) would otherwise reach a user with an A100 or an RTX 40xx.
#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/common/chunk/warp_mma.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/stage_barrier.cuh"
#include "kernels/rwkv7/chunk_tiles.cuh"

// 3xTF32's operand split (warp_mma.cuh): cvt.rn.tf32 on sm_90, cvt.rna.tf32 before it.
__global__ void probe_tf32_parts(const float* x, std::uint32_t* parts) {
  std::uint32_t big, small;
  flabench::chunk::tf32_parts(x[threadIdx.x], big, small);
  parts[2 * threadIdx.x] = big;
  parts[2 * threadIdx.x + 1] = small;
}

// An accumulator strip stored transposed in two bf16 parts (chunk_tiles.cuh): stmatrix on sm_90, two-byte
// stores before it. One warp, 16 rows by 16 columns.
__global__ void probe_store_parts_transposed(const float* x, __nv_bfloat16* out) {
  constexpr int kLd = 24, kPlane = 16 * kLd;
  __shared__ alignas(16) __nv_bfloat16 tile[2 * kPlane];
  float acc[2][4];
  for (int t = 0; t < 2; ++t)
    for (int e = 0; e < 4; ++e) acc[t][e] = x[(t * 4 + e) * 32 + threadIdx.x];
  flabench::rwkv7::store_parts_transposed<2>(tile, kPlane, kLd, 0, acc, 1.f, 0.5f);
  __syncwarp();
  for (int i = threadIdx.x; i < 2 * kPlane; i += 32) out[i] = tile[i];
}

// A ring stage handed from a producer warp to a consumer warp (stage_barrier.cuh): the waits by
// mbarrier.try_wait on sm_90, by a loop of mbarrier.test_wait before it. Two warps, one stage.
__global__ void probe_stage_barrier(const float* in, float* out) {
  __shared__ flabench::StageBarrier stage;
  __shared__ alignas(16) float slot[32];
  if (threadIdx.x == 0) stage.init(32, 32);
  __syncthreads();
  if (threadIdx.x < 32) {
    flabench::cp_async(&slot[threadIdx.x], in + threadIdx.x, 4);
    stage.copies_issued();
    stage.wait_empty(0);
  } else {
    stage.wait_full(0);
    out[threadIdx.x - 32] = slot[threadIdx.x - 32];
    stage.consumed();
  }
}

// A chunk's states brought into L2 before a kernel reads them (cp_async.cuh): one bulk prefetch on sm_90,
// nothing before it (a hint only).
__global__ void probe_prefetch_to_l2(const float* in, float* out) {
  flabench::prefetch_to_l2(in, 4096);
  out[threadIdx.x] = in[threadIdx.x];
}
