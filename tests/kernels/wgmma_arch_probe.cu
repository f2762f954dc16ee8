// Compiled, not run, by tests/scripts/test_arch_paths.py for each architecture the CUDA_ARCHITECTURES option
// is documented for and for sm_90a: the warpgroup products (kernels/common/wgmma/wgmma.cuh) in both operand
// forms. Only sm_90a code has the instructions; every other target must still compile the header, and trap
// where a kernel would reach them (the host launches such kernels only on compute capability 9.0 built for
// 90a). Apart from arch_paths_probe.cu, whose PTX must hold no trap at all.
#include <cstdint>

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
