// Launching a kernel's blocks two by two onto a TPC's two SMs: thread-block clusters of two (sm_90 and up),
// whose blocks the H200 places on neighbouring SM ids 2k and 2k + 1, one TPC by the usual numbering (every
// pair of a 64-block launch; a plain launch: 4 of 32; results/baselines/h200/stop71-paired/smid.txt, which
// reads %smid only). Two latency-bound kernels side by side ran each 1.2-1.3x its time alone where a
// TPC held a block of each, though each block had its SM (gsa's pipelined forward, whose passes' blocks had
// an SM each: 0.80-0.88x once paired; kernels/notes/gsa.md, version 51). Same-kernel neighbours cost nothing:
// gla's forward runs at one speed from 32 to 128 blocks (h200/stop71-decode/gla-heads.log).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "kernels/common/cuda_check.h"

namespace flabench {

// The cluster a grid of grid_x by grid_y blocks is launched in on a device of `compute_capability` (90 for
// sm_90): two blocks along x where grid_x is even, else along y where grid_y is, else none (x = y = 1; so too
// below sm_90, which has no clusters).
struct ClusterShape {
  unsigned x = 1, y = 1;
  bool paired() const { return x * y == 2; }
};
inline ClusterShape tpc_pairs(unsigned grid_x, unsigned grid_y, int compute_capability) {
  if (compute_capability < 90) return {};
  if (grid_x % 2 == 0) return {2, 1};
  if (grid_y % 2 == 0) return {1, 2};
  return {};
}

// kernel<<<grid, block, shared, stream>>>(args...), in the clusters tpc_pairs picks for the grid on
// `compute_capability`.
template <class... Params, class... Args>
void launch_in_tpc_pairs(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared,
                         cudaStream_t stream, int compute_capability, Args&&... args) {
  const ClusterShape shape = tpc_pairs(grid.x, grid.y, compute_capability);
  cudaLaunchConfig_t config{};
  config.gridDim = grid, config.blockDim = block, config.dynamicSmemBytes = shared, config.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = shape.x, cluster.val.clusterDim.y = shape.y, cluster.val.clusterDim.z = 1;
  config.attrs = &cluster, config.numAttrs = shape.paired() ? 1 : 0;
  FLA_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace flabench
