// Compiled, not run, by tests/scripts/test_arch_paths.py for each architecture the CUDA_ARCHITECTURES option
// is documented for and for sm_90a: the warpgroup products (kernels/common/wgmma/wgmma.cuh) in both operand
// forms. Only sm_90a code has the instructions; every other target must still compile the header, and trap
// where a kernel would reach them (the host launches such kernels only on compute capability 9.0 built for
// 90a). Apart from arch_paths_probe.cu, whose PTX must hold no trap at all. Beside them the copies by the
// tensor memory accelerator (kernels/common/tma.cuh), which the wgmma kernels use: sm_90 and sm_90a code
// only, a trap before sm_90.
#include <cuda.h>

#include <cstdint>

#include "kernels/common/tma.cuh"
#include "kernels/common/wgmma/wgmma.cuh"

__global__ void probe_wgmma(const std::uint64_t* descriptors, const std::uint32_t* fragment, float* out) {
  namespace wgmma = flabench::wgmma;
  float d[32];
  const std::uint32_t a[4] = {fragment[4 * threadIdx.x], fragment[4 * threadIdx.x + 1],
                              fragment[4 * threadIdx.x + 2], fragment[4 * threadIdx.x + 3]};
  wgmma::fence();
  wgmma::product<64, 0, 1>(d, descriptors[0], descriptors[1], false);
  wgmma::product<64, 1>(d, a, descriptors[1], true);
  wgmma::commit();
  wgmma::wait<0>();
  wgmma::hold(d);
  for (int i = 0; i < 32; ++i) out[32 * threadIdx.x + i] = d[i];
}

// One box copied by TMA into a 1024-byte-aligned tile and waited for on its mbarrier (tma.cuh).
__global__ void probe_tma_copy(const __grid_constant__ CUtensorMap map, float* out) {
  __shared__ alignas(1024) unsigned char tile[8192];
  __shared__ std::uint64_t copied;
  const unsigned barrier = flabench::shared_address(&copied), dst = flabench::shared_address(tile);
  if (threadIdx.x == 0) {
    flabench::tma::init_copy_barrier(barrier);
    flabench::tma::expect_bytes(barrier, sizeof(tile));
    flabench::tma::copy_box(dst, map, barrier, 0, 0, 0, 0);
  }
  __syncthreads();
  flabench::mbarrier_wait(barrier, 0);
  out[threadIdx.x] = float(tile[threadIdx.x]);
}
